/** What listTasks needs, for both of its routes (the API key's and the console's): one list, one way. */
import { taskList, taskRepository } from './service-dependencies.js';
import { videoRetentionDays, videoUrlSigner } from './url-signer-dependencies.js';

export function taskListDependencies() {
  return {
    taskList: taskList(),
    tasks: taskRepository(),
    signer: videoUrlSigner(),
    videoRetentionDays: videoRetentionDays(),
    now: () => new Date(),
  };
}
