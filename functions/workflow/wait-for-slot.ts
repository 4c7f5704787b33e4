/**
 * State WaitForUpstreamSlot (`.waitForTaskToken`): puts the task in the waiting room with the state's task
 * token and dispatches; the token is answered when the task holds a slot (docs/upstream-capacity.md).
 */
import * as v from 'valibot';
import { waitForSlot } from '../core/use-cases/waiting-room.js';
import { waitingRoomDependencies } from '../adapters/wiring/capacity-dependencies.js';
import { stepHandler, taskId, taskToken } from './step-handler.js';

const deps = waitingRoomDependencies();

export const handler = stepHandler(v.object({ task_id: taskId, task_token: taskToken }), async (input) => {
  await waitForSlot(input.task_id, input.task_token, deps);
});
