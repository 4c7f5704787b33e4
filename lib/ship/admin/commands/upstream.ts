/** The upstream (master) account commands: list them with their load and state, add one or change it. */
import { PROVIDER_NAMES, upstreamAccountDefaults } from '../../../../functions/providers/registry.js';
import type { UpstreamAccount } from '../../../../functions/core/ports/upstream-capacity.js';
import type { Command } from '../cli/command.js';
import { table } from '../cli/table.js';
import { UsageError } from '../errors.js';

export const UPSTREAM_COMMANDS: Record<string, Command> = {
  'upstream:list': {
    args: '',
    summary: 'upstream (master) accounts: keys, queued slots, running jobs, in-flight limit, state; and tasks waiting',
    details:
      'queued: slots in use / capacity (jobs queued upstream). running: jobs that left the queue and have not\n' +
      'ended. in-flight limit: learned (cut on InflightBatchsizeExceeded, raised per accepted job) / ceiling.\n' +
      'state: enabled, cooling (429s in a row, the next probe after the time shown), or disabled with why.',
    async run(_args, open, output) {
      const { accounts, waiting } = await (await open()).store.upstreamAccounts();
      if (accounts.length === 0) output.err('no upstream accounts: tasks wait until one is added (upstream:set)');
      table(output, [
        ['provider', 'account', 'keys', 'queued', 'running', 'in-flight limit', 'state'],
        ...accounts.map((account) => [
          account.provider,
          account.name,
          (account.keys ?? [account.name]).join(','),
          `${account.in_use}/${account.capacity}`,
          String(Math.max(0, (account.inflight ?? 0) - account.in_use)),
          `${account.inflight_limit ?? '-'}/${account.inflight_ceiling ?? '-'}`,
          accountState(account),
        ]),
      ]);
      for (const [provider, count] of Object.entries(waiting)) output.err(`${provider}: ${count} task(s) waiting`);
    },
  },
  'upstream:set': {
    args: '--provider NAME --name ACCOUNT [--capacity N] [--keys K1,K2] [--inflight-ceiling N|none] [--enabled true|false]',
    summary: 'add an upstream (master) account or change its capacity, keys, in-flight ceiling or use',
    details:
      `A new account gets its provider's queued capacity (${PROVIDER_NAMES.map((p) => `${p} ${upstreamAccountDefaults(p)?.capacity}`).join(', ')}) and is enabled,\n` +
      "with the provider's in-flight ceiling where it has one.\n" +
      '--keys names the API keys of this master account (they share its slots; default: one, named as the account);\n' +
      'each goes into the provider\'s secret as JSON {"<key name>": "<key>"} (a plain key is "default").\n' +
      '--inflight-ceiling caps the learned limit on jobs in flight (and sets it there); none removes both.\n' +
      '--enabled true also clears a cool-down and the reason an account was disabled (a refused key).',
    options: ['provider', 'name', 'capacity', 'enabled', 'keys', 'inflight-ceiling'],
    async run(args, open, output) {
      const provider = args.required('provider');
      if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) {
        throw new UsageError(`--provider must be one of ${PROVIDER_NAMES.join(', ')}`);
      }
      const name = args.required('name');
      if (!/^[a-z0-9][a-z0-9-]{0,39}$/.test(name)) {
        throw new UsageError('--name must be 1-40 lowercase letters, digits and dashes');
      }
      const capacityText = args.optional('capacity');
      const capacity = capacityText === undefined ? undefined : Number(capacityText);
      if (capacity !== undefined && !(Number.isInteger(capacity) && capacity >= 0 && capacity <= 100_000)) {
        throw new UsageError('--capacity must be a whole number from 0 to 100000');
      }
      const enabledText = args.optional('enabled');
      if (enabledText !== undefined && enabledText !== 'true' && enabledText !== 'false') {
        throw new UsageError('--enabled must be true or false');
      }
      const enabled = enabledText === undefined ? undefined : enabledText === 'true';
      const keys = args.optional('keys')?.split(',');
      if (keys && !keys.every((key) => /^[a-z0-9][a-z0-9-]{0,39}$/.test(key))) {
        throw new UsageError('--keys must be key names of 1-40 lowercase letters, digits and dashes, comma-separated');
      }
      const ceilingText = args.optional('inflight-ceiling');
      const inflightCeiling = ceilingText === undefined || ceilingText === 'none' ? undefined : Number(ceilingText);
      if (inflightCeiling !== undefined && !(Number.isInteger(inflightCeiling) && inflightCeiling >= 1)) {
        throw new UsageError('--inflight-ceiling must be a whole number of 1 or more, or none');
      }
      const account = await (
        await open()
      ).store.setUpstreamAccount(provider, name, {
        ...(capacity !== undefined && { capacity }),
        ...(enabled !== undefined && { enabled }),
        ...(keys && { keys }),
        ...(ceilingText === 'none' ? { inflightCeiling: null } : inflightCeiling !== undefined && { inflightCeiling }),
      });
      output.out(
        `upstream account ${account.provider}/${account.name}: capacity ${account.capacity}, ` +
          `${account.in_use} queued, keys ${(account.keys ?? [account.name]).join(',')}, ` +
          `in-flight limit ${account.inflight_limit ?? '-'}/${account.inflight_ceiling ?? '-'}, ` +
          `${account.enabled ? 'enabled' : 'disabled'}`,
      );
    },
  },
};

/** An upstream account's state for operators: enabled, cooling (and when it may be probed), or disabled. */
function accountState(account: UpstreamAccount): string {
  if (!account.enabled) return `disabled${account.disabled_reason ? `: ${account.disabled_reason}` : ''}`;
  if ((account.cool_streak ?? 0) > 0) return `cooling (${account.cool_streak} 429s; probe after ${account.cool_until})`;
  return 'enabled';
}
