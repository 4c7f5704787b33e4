/** State TransferVideo: stream the upstream's video into our bucket (bounded memory). */
import * as v from 'valibot';
import { transferVideo } from '../core/use-cases/lifecycle-steps.js';
import { taskRepository } from '../adapters/service-dependencies.js';
import { videoTransfer } from '../adapters/storage-dependencies.js';
import { stepHandler, taskId } from './step-handler.js';

const deps = { tasks: taskRepository(), transfer: videoTransfer() };

const Input = v.object({ task_id: taskId, source_url: v.pipe(v.string(), v.url()) });

export const handler = stepHandler(Input, (input) => transferVideo(input.task_id, input.source_url, deps));
