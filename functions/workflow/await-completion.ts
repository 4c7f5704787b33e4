/**
 * State AwaitCompletion (`.waitForTaskToken`): registers the state's task token on the task and looks at the
 * job once. The upstream's callback, a status query or this look answers the token when the job ends; the
 * state's timeout is the fallback poll (docs/task-lifecycle.md, "Completion").
 */
import * as v from 'valibot';
import { awaitCompletion } from '../core/use-cases/upstream-completion.js';
import { waitingRoomDependencies } from '../adapters/wiring/capacity-dependencies.js';
import { videoProviders } from '../adapters/wiring/provider-dependencies.js';
import { taskRepository } from '../adapters/wiring/service-dependencies.js';
import { stepHandler, taskId, taskToken } from './step-handler.js';

const deps = { ...waitingRoomDependencies(), tasks: taskRepository(), providers: videoProviders() };

export const handler = stepHandler(v.object({ task_id: taskId, task_token: taskToken }), async (input) => {
  await awaitCompletion(input.task_id, input.task_token, deps);
});
