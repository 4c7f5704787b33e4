/** The response envelope and the errors a client can see (docs/api-contract.md, "Envelope and errors"). */
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ForbiddenError,
  InsufficientBalanceError,
  InternalError,
  InvalidRequestError,
  KeyQuotaExceededError,
  NotFoundError,
  RateLimitedError,
  UnsupportedMediaTypeError,
} from '../../functions/core/api-error.js';
import { errorEnvelope, httpStatusOf, successEnvelope } from '../../functions/core/envelope.js';

describe('ApiError subclasses', () => {
  it.each([
    ['InvalidRequestError', new InvalidRequestError('prompt: must not be empty'), 400, 'prompt: must not be empty'],
    ['AuthenticationError', new AuthenticationError(), 401, 'API key is missing, invalid or disabled'],
    ['InsufficientBalanceError', new InsufficientBalanceError(), 402, 'insufficient balance: top up and retry'],
    [
      'KeyQuotaExceededError',
      new KeyQuotaExceededError(),
      402,
      'API key quota exceeded: this task would take the key past its spend quota',
    ],
    ['ForbiddenError', new ForbiddenError(), 403, 'no right to access this resource'],
    ['NotFoundError', new NotFoundError(), 404, 'resource does not exist'],
    ['UnsupportedMediaTypeError', new UnsupportedMediaTypeError(), 415, 'Content-Type must be application/json'],
    ['RateLimitedError', new RateLimitedError(3), 429, 'too many requests: retry after 3 s'],
    ['InternalError', new InternalError(), 500, 'internal server error'],
  ] as const)('%s has code %s and a default message', (name, error, code, message) => {
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it.each([
    new AuthenticationError('API key is disabled'),
    new InsufficientBalanceError('balance 1 is below cost 4.2'),
    new ForbiddenError('this task belongs to another account'),
    new NotFoundError('task x does not exist'),
    new InternalError('boom'),
  ])('$name keeps a message it is given', (error) => {
    expect(error.message).not.toBe('');
    expect(errorEnvelope(error).message).toBe(error.message);
  });

  it('the key quota message names the key quota, not the balance', () => {
    expect(new KeyQuotaExceededError().message).toMatch(/quota/);
    expect(new KeyQuotaExceededError().message).not.toMatch(/balance/);
    expect(new InsufficientBalanceError().message).toMatch(/balance/);
  });

  it('RateLimitedError carries the seconds to wait', () => {
    expect(new RateLimitedError(17).retryAfterSeconds).toBe(17);
  });

  it('a plain ApiError takes any listed code', () => {
    const error = new ApiError(402, 'pay');
    expect([error.code, error.message, error.name]).toEqual([402, 'pay', 'ApiError']);
  });
});

describe('envelopes', () => {
  it('success: code 0, message "success", the data', () => {
    expect(successEnvelope({ balance: 1.5, currency: 'CNY' })).toEqual({
      code: 0,
      message: 'success',
      data: { balance: 1.5, currency: 'CNY' },
    });
  });

  it('success with another message (a transferring task)', () => {
    expect(successEnvelope([], 'query again later')).toEqual({ code: 0, message: 'query again later', data: [] });
  });

  it.each([
    new InvalidRequestError('duration: must be between 5 and 30'),
    new AuthenticationError(),
    new InsufficientBalanceError(),
    new ForbiddenError(),
    new NotFoundError(),
    new RateLimitedError(1),
    new InternalError(),
  ])('error $code: the code, the message and data null', (error) => {
    const envelope = errorEnvelope(error);
    expect(envelope).toEqual({ code: error.code, message: error.message, data: null });
    expect(Object.keys(envelope).sort()).toEqual(['code', 'data', 'message']);
  });
});

describe('httpStatusOf: the HTTP status equals the code, 0 is 200', () => {
  it('code 0 → 200', () => {
    expect(httpStatusOf(successEnvelope(null))).toBe(200);
  });

  it.each([400, 401, 402, 403, 404, 429, 500] as const)('code %s → %s', (code) => {
    expect(httpStatusOf(errorEnvelope(new ApiError(code, 'x')))).toBe(code);
  });
});
