/**
 * Every error a client can see. The envelope `code` equals the HTTP status (DESIGN §3 row 9);
 * each class names one cause so handlers throw meaning, and one mapper turns it into a response.
 */
export type ErrorCode = 400 | 401 | 402 | 403 | 404 | 429 | 500;

export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export class InvalidRequestError extends ApiError {
  override name = 'InvalidRequestError';
  constructor(message: string) {
    super(400, message);
  }
}

export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
  constructor(message = 'API key is missing, invalid or disabled') {
    super(401, message);
  }
}

export class InsufficientBalanceError extends ApiError {
  override name = 'InsufficientBalanceError';
  constructor(message = 'insufficient balance: top up and retry') {
    super(402, message);
  }
}

export class KeyQuotaExceededError extends ApiError {
  override name = 'KeyQuotaExceededError';
  constructor(message = 'API key quota exceeded: this task would take the key past its spend quota') {
    super(402, message);
  }
}

export class ForbiddenError extends ApiError {
  override name = 'ForbiddenError';
  constructor(message = 'no right to access this resource') {
    super(403, message);
  }
}

export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  constructor(message = 'resource does not exist') {
    super(404, message);
  }
}

export class RateLimitedError extends ApiError {
  override name = 'RateLimitedError';
  constructor(readonly retryAfterSeconds: number) {
    super(429, `too many requests: retry after ${retryAfterSeconds} s`);
  }
}

export class InternalError extends ApiError {
  override name = 'InternalError';
  constructor(message = 'internal server error') {
    super(500, message);
  }
}
