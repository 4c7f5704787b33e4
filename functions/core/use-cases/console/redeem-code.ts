/**
 * POST /api/v1/console/redeem. Primary course: normalise the code (case, spaces and dashes do not matter);
 * look it up by its hash; mark it used by this account, add its amount and write its ledger entry in one
 * transaction; answer the amount and the new balance. Unknown, used or expired codes are a 400.
 */
import * as v from 'valibot';
import { InvalidRequestError } from '../../api-error.js';
import { parseBody } from '../../console-key.js';
import { balanceToYuan, unitsToYuan } from '../../money.js';
import type { RedeemCodeStore } from '../../ports/console.js';
import { hashRedeemCode, normaliseRedeemCode } from '../../redeem-code.js';
import type { ConsoleCaller } from './console-caller.js';

export const RedeemRequestSchema = v.strictObject({
  code: v.pipe(v.string('code must be text'), v.trim(), v.minLength(1, 'code must not be empty'), v.maxLength(64)),
});
export const RedeemResultSchema = v.strictObject({
  amount: v.pipe(v.number(), v.description('CNY added')),
  balance: v.pipe(v.number(), v.description('CNY, after the top-up')),
  already_redeemed_at: v.pipe(
    v.nullable(v.string()),
    v.description('Set when this account had redeemed the code before: nothing was added now'),
  ),
});

export async function redeemCode(
  caller: ConsoleCaller,
  body: unknown,
  deps: { codes: RedeemCodeStore; now: () => Date },
): Promise<v.InferOutput<typeof RedeemResultSchema>> {
  const code = normaliseRedeemCode(parseBody(RedeemRequestSchema, body).code);
  if (!code) throw new InvalidRequestError('this is not a top-up code: check it and try again');
  const outcome = await deps.codes.redeem(caller.accountId, hashRedeemCode(code), deps.now());
  switch (outcome.kind) {
    case 'redeemed':
      return {
        amount: unitsToYuan(outcome.amountUnits),
        balance: balanceToYuan(outcome.balanceUnits),
        already_redeemed_at: outcome.redeemedBefore ?? null,
      };
    case 'unknown':
      throw new InvalidRequestError('this code does not exist: check it and try again');
    case 'used':
      throw new InvalidRequestError('this code has been redeemed already');
    case 'expired':
      throw new InvalidRequestError('this code has expired');
    case 'too-large':
      throw new InvalidRequestError('this code would take the balance past its limit: contact support');
  }
}
