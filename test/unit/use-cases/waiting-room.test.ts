/**
 * The waiting room (docs/upstream-capacity.md): tasks take an upstream account's slots in submit order, a freed slot
 * goes to the oldest waiting task at once, and an account never admits more jobs than its capacity.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { UpstreamAccount, UpstreamCapacity } from '../../../functions/core/ports/upstream-capacity.js';
import type { TaskRecord } from '../../../functions/core/task.js';
import type { WaitingRoomDeps } from '../../../functions/core/use-cases/waiting-room.js';
import {
  DISPATCH_PACE,
  dispatch,
  leaveWaitingRoom,
  queuePosition,
  releaseSlot,
  SLOT_TAKEN,
  waitForSlot,
  waitingPosition,
} from '../../../functions/core/use-cases/waiting-room.js';
import { GenerationTimedOutError, TaskNotFoundError } from '../../../functions/core/workflow-errors.js';
import { taskRecord } from '../../support/task-records.js';
import type { TaskRecordFields } from '../../support/task-records.js';
import { countHeldSlots, InMemoryTasks, NOW, waitingRoom } from '../fakes.js';
import type { InMemoryCapacity, RecordingWaker } from '../fakes.js';
import { rejection } from '../support.js';

const SLOT = 'ark#default';

/** The n-th task submitted (1 is the oldest), pending without a slot. */
function submitted(n: number, fields: TaskRecordFields = {}): TaskRecord {
  const createdAt = new Date(NOW.getTime() - 3600_000 + n * 1000).toISOString();
  return taskRecord({ task_id: `task-${String(n).padStart(2, '0')}`, created_at: createdAt, ...fields });
}
const idOf = (n: number) => submitted(n).task_id;
const tokenOf = (n: number) => `wait-${n}`;
/** A running task holding a slot, outside the waiting room. */
const holder = (name: string) =>
  taskRecord({ task_id: name, status: 'running', upstream_job_id: `job-${name}`, upstream_slot: SLOT });

describe('waiting room', () => {
  let tasks: InMemoryTasks;
  let capacity: InMemoryCapacity;
  let waker: RecordingWaker;
  let now: Date;
  let deps: WaitingRoomDeps;
  let pauses: number[];

  const use = (records: TaskRecord[], accounts: Partial<UpstreamAccount>[] = [{}]) => {
    tasks = new InMemoryTasks(...records);
    const room = waitingRoom(tasks, accounts);
    ({ capacity, waker, pauses } = room);
    countHeldSlots(tasks, capacity);
    deps = { ...room, tasks, now: () => now };
  };
  const slotOf = async (taskId: string) => (await tasks.get(taskId))?.upstream_slot;
  const answered = () => waker.answers.map((answer) => answer.token);
  const inUse = (name = 'default') => capacity.accountsById.get(`ark#${name}`)?.in_use;
  const release = async (taskId: string) => {
    const task = await tasks.get(taskId);
    if (!task) throw new Error(`no task ${taskId}`);
    return releaseSlot(task, deps);
  };
  /** Every hand-over transaction loses, each try taking `msPerTry`; the rounds of each stopped dispatch are kept. */
  const slowStore = (msPerTry: number) => {
    const contended: number[] = [];
    deps.onContended = (rounds) => contended.push(rounds);
    (capacity as UpstreamCapacity).assign = async () => {
      now = new Date(now.getTime() + msPerTry);
      return 'conflict';
    };
    return { contended, start: now.getTime() };
  };
  const positions = async (...ns: number[]) =>
    Promise.all(ns.map(async (n) => queuePosition((await tasks.get(idOf(n))) as TaskRecord, deps)));

  beforeEach(() => {
    now = NOW;
    use([submitted(1)]);
  });

  it('a free slot is taken at once: the task holds it (with a callback secret) and its token is answered', async () => {
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(await tasks.get(idOf(1))).toMatchObject({
      status: 'pending',
      upstream_slot: SLOT,
      upstream_account: 'default',
      callback_token: 'callback-1',
    });
    expect(waker.answers).toEqual([{ token: tokenOf(1), output: SLOT_TAKEN }]);
    expect(inUse()).toBe(1);
    expect(capacity.queue.size).toBe(0);
  });

  it('an entrant whose transactions keep losing to other writers of the counter backs off and is still served', async () => {
    // 60 conflicts in a row: the old 20-round dispatch gave up here, leaving the task to the 2-minute safety net.
    let conflicts = 60;
    const assign = capacity.assign.bind(capacity);
    (capacity as UpstreamCapacity).assign = async (...args) => (conflicts-- > 0 ? 'conflict' : assign(...args));
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(answered()).toEqual([tokenOf(1)]);
    expect(await slotOf(idOf(1))).toBe(SLOT);
    expect(pauses.length).toBe(60);
    expect(Math.max(...pauses)).toBeLessThanOrEqual(200);
  });

  it('a dispatch that keeps losing gives up after its patience, leaving the entry for the next dispatch', async () => {
    (capacity as UpstreamCapacity).assign = async () => 'conflict';
    const contended: number[] = [];
    deps.onContended = (rounds) => contended.push(rounds);
    const start = now.getTime();
    deps.pause = async (ms) => {
      now = new Date(now.getTime() + ms + 100);
    };
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(now.getTime() - start).toBeGreaterThanOrEqual(DISPATCH_PACE.patienceMs);
    expect(answered()).toEqual([]);
    expect(capacity.queue.size).toBe(1);
    expect(contended).toHaveLength(1);
  });

  it('a round that outlasts the patience (a busy store) is not the last: five contended rounds come first', async () => {
    let conflicts = 4;
    const assign = capacity.assign.bind(capacity);
    (capacity as UpstreamCapacity).assign = async (...args) => {
      now = new Date(now.getTime() + DISPATCH_PACE.patienceMs);
      return conflicts-- > 0 ? 'conflict' : assign(...args);
    };
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(answered()).toEqual([tokenOf(1)]);
  });

  it('a store so slow that rounds take seconds: no round starts past the hard stop, contended or not', async () => {
    const { contended, start } = slowStore(10_000);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    // Rounds at 0, 10 and 20 s; none at 30 s, though only three were contended (the patience wants five).
    expect(now.getTime() - start).toBe(30_000);
    expect(contended).toEqual([3]);
    expect(capacity.queue.size).toBe(1);
  });

  it("a release's dispatch (in a request or a step that ended the job) stops after its shorter hard stop", async () => {
    use([holder('x'), submitted(1)], [{ capacity: 1 }]);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    const { contended, start } = slowStore(1_500);
    expect(await release('x')).toBe(true);
    // Rounds at 0, 1.5 and 3 s; none at 4.5 s, though only three were contended.
    expect(now.getTime() - start).toBe(4_500);
    expect(contended).toEqual([3]);
    expect(answered()).toEqual([]);
  });

  it('submit order: of 5 tasks on 2 slots the two oldest start, then each release hands the next oldest its slot', async () => {
    use([holder('x'), holder('y'), ...[1, 2, 3, 4, 5].map((n) => submitted(n))], [{ capacity: 2 }]);
    // They enter in any order: all wait, in submit order.
    for (const n of [4, 2, 5, 1, 3]) await waitForSlot(idOf(n), tokenOf(n), deps);
    expect(answered()).toEqual([]);
    expect(await positions(1, 2, 3, 4, 5)).toEqual([1, 2, 3, 4, 5]);

    await release('x');
    await release('y');
    expect(answered()).toEqual([tokenOf(1), tokenOf(2)]);
    expect([await slotOf(idOf(1)), await slotOf(idOf(2)), await slotOf(idOf(3))]).toEqual([SLOT, SLOT, undefined]);
    expect(await positions(3, 4, 5)).toEqual([1, 2, 3]);

    for (const [ended, next] of [
      [1, 3],
      [2, 4],
      [3, 5],
    ] as const) {
      await release(idOf(ended));
      expect(answered().at(-1)).toBe(tokenOf(next));
      expect(await slotOf(idOf(next))).toBe(SLOT);
      expect(inUse()).toBe(2);
    }
    expect(answered()).toEqual([1, 2, 3, 4, 5].map(tokenOf));
    expect(capacity.queue.size).toBe(0);
  });

  it('all entered before a dispatch: the free slots go to the oldest', async () => {
    use(
      [1, 2, 3, 4, 5].map((n) => submitted(n)),
      [{ capacity: 2 }],
    );
    for (const n of [5, 3, 1, 4, 2]) {
      const task = (await tasks.get(idOf(n))) as TaskRecord;
      await capacity.enqueue({
        provider: 'ark',
        position: waitingPosition(task),
        task_id: task.task_id,
        token: tokenOf(n),
        entered_at: NOW.toISOString(),
      });
    }
    expect(await dispatch('ark', deps)).toBe(2);
    expect(new Set(answered())).toEqual(new Set([tokenOf(1), tokenOf(2)]));
    expect(await positions(3, 4, 5)).toEqual([1, 2, 3]);
  });

  it('a task entering after others waits behind them, even if a slot frees at that moment', async () => {
    use([holder('x'), submitted(1), submitted(2), submitted(3)], [{ capacity: 1 }]);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    await waitForSlot(idOf(2), tokenOf(2), deps);
    // The slot frees (its dispatch not yet run) just as task 3 enters: task 3's own dispatch serves task 1.
    await capacity.release('x', SLOT, NOW.toISOString());
    await waitForSlot(idOf(3), tokenOf(3), deps);
    expect(answered()).toEqual([tokenOf(1)]);
    expect(await slotOf(idOf(3))).toBeUndefined();
    expect(await positions(2, 3)).toEqual([1, 2]);
  });

  it('…and when the release and the entry run at once', async () => {
    use([holder('x'), submitted(1), submitted(2)], [{ capacity: 1 }]);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    await Promise.all([release('x'), waitForSlot(idOf(2), tokenOf(2), deps)]);
    expect(answered()).toEqual([tokenOf(1)]);
    expect(await slotOf(idOf(2))).toBeUndefined();
    expect(inUse()).toBe(1);
  });

  it('a stale entry (its task ended while waiting) is dropped and takes no slot, its wait answered; the next tasks take them', async () => {
    use([holder('x'), holder('y'), submitted(1), submitted(2), submitted(3)], [{ capacity: 2 }]);
    for (const n of [1, 2, 3]) await waitForSlot(idOf(n), tokenOf(n), deps);
    // Task 1 is refunded by something that did not take it out of the room.
    await tasks.refund((await tasks.get(idOf(1))) as TaskRecord, 'refunded', 'cancelled', NOW.toISOString());
    await capacity.release('x', SLOT, NOW.toISOString());
    await capacity.release('y', SLOT, NOW.toISOString());
    expect(await dispatch('ark', deps)).toBe(2);
    expect(await slotOf(idOf(1))).toBeUndefined();
    // Task 1's wait goes on to the next step, which finds the task ended, rather than wait out its timeout.
    expect(new Set(answered())).toEqual(new Set([tokenOf(1), tokenOf(2), tokenOf(3)]));
    expect(inUse()).toBe(2);
    expect(capacity.queue.size).toBe(0);
  });

  it('a stale entry at the head of the room does not hold up the task behind it', async () => {
    use([holder('x'), submitted(1), submitted(2)], [{ capacity: 1 }]);
    for (const n of [1, 2]) await waitForSlot(idOf(n), tokenOf(n), deps);
    await tasks.refund((await tasks.get(idOf(1))) as TaskRecord, 'refunded', 'cancelled', NOW.toISOString());
    await release('x');
    expect(await slotOf(idOf(1))).toBeUndefined();
    expect(answered()).toEqual([tokenOf(1), tokenOf(2)]);
    expect(await slotOf(idOf(2))).toBe(SLOT);
  });

  it('a disabled or cooling account gives nothing; a usable one does, and a cooled one again after its cool-down', async () => {
    const coolUntil = new Date(NOW.getTime() + 10_000).toISOString();
    use(
      [submitted(1), submitted(2), submitted(3)],
      [
        { name: 'off', capacity: 5, enabled: false, disabled_reason: '401' },
        { name: 'cool', capacity: 5, cool_until: coolUntil },
      ],
    );
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(answered()).toEqual([]);
    expect(await slotOf(idOf(1))).toBeUndefined();
    expect(await positions(1)).toEqual([1]);
    expect([inUse('off'), inUse('cool')]).toEqual([0, 0]);

    now = new Date(NOW.getTime() + 10_001);
    // An entering task serves one slot (one of the oldest as many as there are free slots); the reconciler's
    // dispatch serves the rest.
    await waitForSlot(idOf(2), tokenOf(2), deps);
    expect(answered()).toHaveLength(1);
    expect(await dispatch('ark', deps)).toBe(1);
    expect(new Set(answered())).toEqual(new Set([tokenOf(1), tokenOf(2)]));
    expect([await slotOf(idOf(1)), await slotOf(idOf(2))]).toEqual(['ark#cool', 'ark#cool']);
    expect(inUse('off')).toBe(0);
  });

  it('of several usable accounts, the one with the most free slots serves', async () => {
    use(
      [submitted(1)],
      [
        { name: 'a', capacity: 3, in_use: 2 },
        { name: 'b', capacity: 3, in_use: 0 },
      ],
    );
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(await tasks.get(idOf(1))).toMatchObject({ upstream_slot: 'ark#b', upstream_account: 'b' });
  });

  it('queuePosition: 1..n in submit order; none for a task holding a slot, started or final', async () => {
    use([holder('x'), ...[1, 2, 3, 4].map((n) => submitted(n))], [{ capacity: 1 }]);
    for (const n of [3, 1, 4, 2]) await waitForSlot(idOf(n), tokenOf(n), deps);
    expect(await positions(1, 2, 3, 4)).toEqual([1, 2, 3, 4]);
    await release('x');
    expect(await positions(1, 2, 3, 4)).toEqual([undefined, 1, 2, 3]);
    expect(await queuePosition(holder('x'), deps)).toBeUndefined();
    expect(await queuePosition(submitted(9, { status: 'refunded' }), deps)).toBeUndefined();
    expect(await queuePosition(submitted(9, { status: 'running', upstream_job_id: 'job-9' }), deps)).toBeUndefined();
  });

  it('a wait tried past the deadline → GenerationTimedOutError, and the task leaves the room', async () => {
    use([holder('x'), submitted(1), submitted(2)], [{ capacity: 1 }]);
    const deadline = Date.parse(submitted(1).deadline_at);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    await waitForSlot(idOf(2), tokenOf(2), deps);
    // At the deadline itself it still waits (the state's timeout enters it again, with a new token).
    now = new Date(deadline);
    await waitForSlot(idOf(1), 'wait-1b', deps);
    expect(capacity.queue.size).toBe(2);
    now = new Date(deadline + 1);
    const error = await rejection(waitForSlot(idOf(1), 'wait-1c', deps));
    expect(error).toBeInstanceOf(GenerationTimedOutError);
    expect(error.message).toContain(submitted(1).deadline_at);
    expect(await positions(2)).toEqual([1]);
    expect([...capacity.queue.values()].map((entry) => entry.task_id)).toEqual([idOf(2)]);
    // Its slot, when it frees, goes to the task behind.
    now = NOW;
    await release('x');
    expect(answered()).toEqual([tokenOf(2)]);
  });

  it('a wait entered again keeps its place, with the new token', async () => {
    use([holder('x'), submitted(1), submitted(2)], [{ capacity: 1 }]);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    await waitForSlot(idOf(2), tokenOf(2), deps);
    await waitForSlot(idOf(1), 'wait-1b', deps);
    expect(await positions(1, 2)).toEqual([1, 2]);
    await release('x');
    expect(answered()).toEqual(['wait-1b']);
  });

  it('a try that enters after a dispatch gave the task a slot on its previous entry is answered at once', async () => {
    use([holder('x'), submitted(1)], [{ capacity: 1 }]);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    // The next try reads the task (no slot yet); the release hands the slot to the first entry before the
    // second is written.
    const enqueue = capacity.enqueue.bind(capacity);
    capacity.enqueue = async (entry) => {
      await release('x');
      await enqueue(entry);
    };
    await waitForSlot(idOf(1), 'wait-1b', deps);
    expect(answered()).toEqual([tokenOf(1), 'wait-1b']);
    expect(await slotOf(idOf(1))).toBe(SLOT);
    expect(capacity.queue.size).toBe(0);
  });

  it('a stale entry of a task holding a slot (its wait entered late) is answered by the next dispatch', async () => {
    use([submitted(1, { upstream_slot: SLOT })], [{ capacity: 2 }]);
    await capacity.enqueue({
      provider: 'ark',
      position: waitingPosition(submitted(1)),
      task_id: idOf(1),
      token: 'late',
      entered_at: NOW.toISOString(),
    });
    expect(await dispatch('ark', deps)).toBe(0);
    expect(answered()).toEqual(['late']);
    expect(capacity.queue.size).toBe(0);
  });

  it.each<[string, TaskRecordFields]>([
    ['already holding a slot', { upstream_slot: SLOT }],
    ['with a job already', { status: 'running', upstream_job_id: 'job-1' }],
    ['already final', { status: 'refunded' }],
  ])('a task %s: its token is answered at once, nothing enters the room', async (_, fields) => {
    // The account is full either way: held by this task or by another.
    use([submitted(1, fields)], [{ capacity: 1, in_use: fields.upstream_slot ? 0 : 1 }]);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(waker.answers).toEqual([{ token: tokenOf(1), output: SLOT_TAKEN }]);
    expect(capacity.queue.size).toBe(0);
    expect(inUse()).toBe(1);
  });

  it('an unknown task → TaskNotFoundError', async () => {
    expect(await rejection(waitForSlot('task-none', 'wait-x', deps))).toBeInstanceOf(TaskNotFoundError);
  });

  it('releaseSlot twice frees one slot (and serves one waiting task)', async () => {
    use([holder('x'), holder('y'), submitted(1), submitted(2)], [{ capacity: 2 }]);
    for (const n of [1, 2]) await waitForSlot(idOf(n), tokenOf(n), deps);
    const x = (await tasks.get('x')) as TaskRecord;
    expect(await releaseSlot(x, deps)).toBe(true);
    expect(await releaseSlot(x, deps)).toBe(false);
    expect(await Promise.all([releaseSlot(x, deps), releaseSlot(x, deps)])).toEqual([false, false]);
    expect(answered()).toEqual([tokenOf(1)]);
    expect(await slotOf('y')).toBe(SLOT);
    expect(inUse()).toBe(2);
  });

  it('releaseSlot of a task holding none does nothing', async () => {
    use([holder('x'), submitted(1)], [{ capacity: 1 }]);
    await waitForSlot(idOf(1), tokenOf(1), deps);
    expect(await releaseSlot(submitted(1), deps)).toBe(false);
    expect(inUse()).toBe(1);
    expect(answered()).toEqual([]);
  });

  it('leaveWaitingRoom takes a waiting task out; a task holding a slot has no entry to take', async () => {
    use([holder('x'), submitted(1), submitted(2)], [{ capacity: 1 }]);
    for (const n of [1, 2]) await waitForSlot(idOf(n), tokenOf(n), deps);
    await leaveWaitingRoom((await tasks.get(idOf(1))) as TaskRecord, deps);
    expect(await positions(2)).toEqual([1]);
    await release('x');
    expect(answered()).toEqual([tokenOf(2)]);
  });

  it('in_use never exceeds the capacity: 50 tasks entering at once on 3 slots, then 3 releases at once', async () => {
    const many = Array.from({ length: 50 }, (_, i) => submitted(i + 1));
    use(many, [{ capacity: 3 }]);
    let most = 0;
    const assign = capacity.assign.bind(capacity);
    capacity.assign = async (...args) => {
      const outcome = await assign(...args);
      most = Math.max(most, inUse() ?? 0);
      return outcome;
    };
    await Promise.all(many.map((task, i) => waitForSlot(task.task_id, tokenOf(i + 1), deps)));
    const holders = () => [...tasks.tasks.values()].filter((task) => task.upstream_slot === SLOT);
    expect(holders()).toHaveLength(3);
    expect(inUse()).toBe(3);
    expect(waker.answers).toHaveLength(3);
    expect(capacity.queue.size).toBe(47);

    await Promise.all(holders().map((task) => releaseSlot(task, deps)));
    expect(holders()).toHaveLength(3);
    expect(inUse()).toBe(3);
    expect(waker.answers).toHaveLength(6);
    expect(capacity.queue.size).toBe(44);
    expect(most).toBe(3);
  });
});
