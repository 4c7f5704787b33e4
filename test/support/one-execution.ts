/**
 * Starts one execution of the local Step Functions server through the real SFN client, named by a new task
 * id as the service names them, and waits until it has ended: the shared step of the ASL routing tests.
 */
import { randomUUID } from 'node:crypto';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import type { LocalStepFunctions } from '../../lib/dev/local/step-functions-server.js';
import { pollUntil } from './test-stack.js';

export async function runOneExecution(machine: LocalStepFunctions, stateMachineArn: string) {
  const sfn = new SFNClient({ region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, endpoint: machine.endpoint });
  const taskId = randomUUID();
  await sfn.send(
    new StartExecutionCommand({ stateMachineArn, name: taskId, input: JSON.stringify({ task_id: taskId }) }),
  );
  sfn.destroy();
  const execution = await pollUntil(
    async () => machine.executions()[0],
    (record) => record !== undefined && record.status !== 'RUNNING',
    { timeoutMs: 120_000 },
  );
  return { taskId, execution };
}
