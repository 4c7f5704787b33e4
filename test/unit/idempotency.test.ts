/** The Idempotency-Key pieces shared by the routes (functions/core/idempotency.ts). */
import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../functions/core/api-error.js';
import {
  idempotencyRecord,
  idempotentRequest,
  isLive,
  parseIdempotencyKey,
  replay,
  requestHash,
} from '../../functions/core/idempotency.js';

const NOW = new Date('2026-11-21T10:00:00.000Z');

describe('Idempotency-Key', () => {
  it('the header: absent is none; 1–255 printable ASCII; anything else a 400', () => {
    expect(parseIdempotencyKey(undefined)).toBeUndefined();
    expect(parseIdempotencyKey('a')).toBe('a');
    expect(parseIdempotencyKey('~'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'a'.repeat(256), '\u00e9', 'a\u0000', 'line\nbreak', '\u007f']) {
      expect(() => parseIdempotencyKey(bad), JSON.stringify(bad)).toThrow(InvalidRequestError);
    }
  });

  it('the fingerprint ignores key order and spacing, not values or array order', () => {
    expect(requestHash({ a: 1, b: { c: [1, 2] } })).toBe(requestHash(JSON.parse('{ "b": {"c":[1,2]}, "a":1 }')));
    expect(requestHash({ a: 1 })).not.toBe(requestHash({ a: 2 }));
    expect(requestHash({ a: [1, 2] })).not.toBe(requestHash({ a: [2, 1] }));
    expect(requestHash({ a: '1' })).not.toBe(requestHash({ a: 1 }));
  });

  it('a record: scoped by account and route, kept 24 h, replayed only for the same body', () => {
    const request = idempotentRequest('acc', 'video.generate', 'k', { x: 1 });
    expect(request.id).toBe('acc#video.generate#k');
    const record = idempotencyRecord(request, 'task-1', { task_id: 'task-1', cost: 4.2 }, NOW);
    expect(record).toMatchObject({ resource_id: 'task-1', status_code: 200, account_id: 'acc' });
    expect(isLive(record, new Date(NOW.getTime() + 24 * 3600 * 1000 - 1000))).toBe(true);
    expect(isLive(record, new Date(NOW.getTime() + 24 * 3600 * 1000))).toBe(false);
    expect(replay(record, request)).toEqual({ task_id: 'task-1', cost: 4.2 });
    const other = idempotentRequest('acc', 'video.generate', 'k', { x: 2 });
    expect(() => replay(record, other)).toThrow(InvalidRequestError);
  });
});
