/** Task states and every move between them (docs/task-lifecycle.md, "States", "Cancel", "Live status"). */
import { describe, expect, it } from 'vitest';
import {
  assertMove,
  canMove,
  FINAL_STATUSES,
  IllegalTransitionError,
  isFinal,
  statesBefore,
  TASK_STATUSES,
} from '../../functions/core/task-status.js';
import type { TaskStatus } from '../../functions/core/task-status.js';

const ALLOWED: ReadonlySet<string> = new Set([
  'pending→running',
  'pending→transferring',
  'pending→failed',
  'pending→refunded',
  'running→transferring',
  'running→failed',
  'running→refunded',
  'transferring→success',
  'transferring→failed',
]);

const MATRIX = TASK_STATUSES.flatMap((from) =>
  TASK_STATUSES.map((to) => ({ from, to, allowed: ALLOWED.has(`${from}→${to}`) })),
);

it('has the six states of the spec, in order', () => {
  expect(TASK_STATUSES).toEqual(['pending', 'running', 'transferring', 'success', 'failed', 'refunded']);
  expect(MATRIX).toHaveLength(36);
  expect(MATRIX.filter((move) => move.allowed)).toHaveLength(9);
});

describe.each(MATRIX.filter((move) => move.allowed))('allowed: $from → $to', ({ from, to }) => {
  it('canMove is true', () => {
    expect(canMove(from, to)).toBe(true);
  });

  it('assertMove does not throw', () => {
    expect(() => assertMove(from, to)).not.toThrow();
  });
});

describe.each(MATRIX.filter((move) => !move.allowed))('forbidden: $from → $to', ({ from, to }) => {
  it('canMove is false', () => {
    expect(canMove(from, to)).toBe(false);
  });

  it('assertMove throws IllegalTransitionError naming both states', () => {
    let thrown: unknown;
    try {
      assertMove(from, to);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(IllegalTransitionError);
    const error = thrown as IllegalTransitionError;
    expect(error.name).toBe('IllegalTransitionError');
    expect(error.from).toBe(from);
    expect(error.to).toBe(to);
    expect(error.message).toBe(`a task cannot move from ${from} to ${to}`);
  });
});

describe('final states', () => {
  it.each([
    ['pending', false],
    ['running', false],
    ['transferring', false],
    ['success', true],
    ['failed', true],
    ['refunded', true],
  ] as const)('isFinal(%s) is %s', (status, final) => {
    expect(isFinal(status)).toBe(final);
    expect(FINAL_STATUSES.has(status)).toBe(final);
  });

  it.each(TASK_STATUSES)('no state is reachable from itself (%s)', (status) => {
    expect(canMove(status, status)).toBe(false);
  });

  it.each(['success', 'failed', 'refunded'] as const)('nothing leaves %s', (status) => {
    expect(TASK_STATUSES.filter((to) => canMove(status, to))).toEqual([]);
  });

  it('no move goes back to pending', () => {
    expect(statesBefore('pending')).toEqual([]);
  });
});

describe('statesBefore: the condition of each conditional write', () => {
  it.each([
    ['pending', []],
    ['running', ['pending']],
    ['transferring', ['pending', 'running']],
    ['success', ['transferring']],
    ['failed', ['pending', 'running', 'transferring']],
    ['refunded', ['pending', 'running']],
  ] as [TaskStatus, TaskStatus[]][])('statesBefore(%s) = %j', (to, from) => {
    expect(statesBefore(to)).toEqual(from);
  });

  it.each(TASK_STATUSES)('agrees with canMove for %s', (to) => {
    expect(statesBefore(to)).toEqual(TASK_STATUSES.filter((from) => canMove(from, to)));
  });
});
