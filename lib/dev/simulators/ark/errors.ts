/**
 * The simulated Ark's refusals, shaped as the real ones: HTTP status plus `{error: {code, message, param,
 * type}}`. Codes, statuses and types follow Ark's error-code table (volcengine/ark-cli
 * skills/arkcli-doctor/references/error-codes.md), so the gateway's error handling meets real shapes.
 */

export class ArkError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly type: string,
    readonly param = '',
  ) {
    super(message);
  }
}

/** 400 `InvalidParameter`, naming the field at fault in `param`. */
export const invalid = (param: string, message: string): ArkError =>
  new ArkError(400, 'InvalidParameter', `The parameter \`${param}\` ${message}`, 'BadRequest', param);

/** 400 `MissingParameter`. */
export const missing = (param: string): ArkError =>
  new ArkError(
    400,
    'MissingParameter',
    `The request failed because it is missing the \`${param}\` parameter.`,
    'BadRequest',
    param,
  );

/** 429 with one of Ark's TooManyRequests codes (`QuotaExceeded`, `RateLimitExceeded.*`, `ServerOverloaded`). */
export const tooMany = (code: string, message: string): ArkError => new ArkError(429, code, message, 'TooManyRequests');

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
