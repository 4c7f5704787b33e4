/**
 * Every error a client can see. The envelope `code` equals the HTTP status (docs/api-contract.md, "Envelope and errors");
 * each class names one cause so handlers throw meaning, and one mapper turns it into a response.
 */
export type ErrorCode = 400 | 401 | 402 | 403 | 404 | 415 | 429 | 500;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** An ApiError class with its literal name (minified bundles lose class names), its code and default message. */
function apiError<N extends string>(name: N, code: ErrorCode, fallback: string) {
  return class extends ApiError {
    override name: N = name;
    constructor(message = fallback) {
      super(code, message);
    }
  };
}

export class InvalidRequestError extends apiError('InvalidRequestError', 400, 'invalid request') {}
export class AuthenticationError extends apiError(
  'AuthenticationError',
  401,
  'API key is missing, invalid or disabled',
) {}
export class InsufficientBalanceError extends apiError(
  'InsufficientBalanceError',
  402,
  'insufficient balance: top up and retry',
) {}
export class KeyQuotaExceededError extends apiError(
  'KeyQuotaExceededError',
  402,
  'API key quota exceeded: this task would take the key past its spend quota',
) {}
export class ForbiddenError extends apiError('ForbiddenError', 403, 'no right to access this resource') {}
export class NotFoundError extends apiError('NotFoundError', 404, 'resource does not exist') {}
export class UnsupportedMediaTypeError extends apiError(
  'UnsupportedMediaTypeError',
  415,
  'Content-Type must be application/json',
) {}

export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  constructor(
    readonly retryAfterSeconds: number,
    message = `too many requests: retry after ${retryAfterSeconds} s`,
  ) {
    super(429, message);
  }
}

export class InternalError extends apiError('InternalError', 500, 'internal server error') {}

/**
 * The 402 of a charge the balance does not cover, with the figures a customer needs: the cost, the balance, what
 * is missing, and how to top up (docs/money-and-ledger.md, "Top-ups").
 */
export function insufficientBalance(costUnits: number, balanceUnits: number): InsufficientBalanceError {
  const yuan = (units: number) => `${Number((Math.max(0, units) / 10_000).toFixed(4))} CNY`;
  return new InsufficientBalanceError(
    `insufficient balance: this costs ${yuan(costUnits)} and the balance is ${yuan(balanceUnits)}, ` +
      `${yuan(costUnits - balanceUnits)} short: top up with Alipay (POST /api/v1/account/topups, or the console's ` +
      'Top up page), then retry',
  );
}
