/**
 * The run's one local stack (started by test/support/shared-stack-setup.ts), as a test file sees it: the same
 * fields as a stack of its own, where a field can cross processes; what the simulator and the local Step
 * Functions hold is asked over their HTTP APIs.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeExecutionCommand, ExecutionDoesNotExist, SFNClient } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { AdminStore } from '../../lib/ship/admin/admin-store.js';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../lib/ship/sam-local/local-aws.js';
import type { LocalStack } from '../../lib/dev/local/local-stack.js';
import type { SimulatedJob } from '../../lib/dev/simulators/ark/simulator.js';

export interface SharedStackInfo extends Pick<
  LocalStack,
  'baseUrl' | 'demo' | 'console' | 'endpoints' | 'names' | 'webhookQueues'
> {
  stateMachineArn: string;
  /** The Alipay simulator's base URL: its trades and notifications under /simulator/. */
  alipaySimulatorUrl: string;
  /** Where the handlers reach Alipay (the simulator, and our app's throwaway keys for it). */
  payments: LocalStack['payments']['endpoint'];
}

export interface SharedStack extends SharedStackInfo, Pick<LocalStack, 'db' | 'admin'> {
  /** Every job the simulated upstream holds, every file's together: filter by a prompt of your own. */
  upstream: { jobs(): Promise<SimulatedJob[]> };
  /** The task's first execution (named after it), as DescribeExecution gives it; undefined until it starts. */
  execution(taskId: string): Promise<{ status: string; output?: string } | undefined>;
}

let shared: SharedStack | undefined;

export function sharedStack(): SharedStack {
  if (shared) return shared;
  const info = inject('sharedStack');
  if (!info) throw new Error('no shared stack in this run: its global setup skips runs of test/unit alone');
  const config = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ ...config, endpoint: info.endpoints.dynamodb }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  const sfn = new SFNClient({ ...config, endpoint: info.endpoints.sfn });
  const executionPrefix = info.stateMachineArn.replace(':stateMachine:', ':execution:');
  shared = {
    ...info,
    db,
    admin: new AdminStore(db, info.names.tables),
    upstream: {
      jobs: async () => {
        const response = await fetch(`${info.endpoints.upstreams.ark.baseUrl}/simulator/jobs`);
        if (!response.ok) throw new Error(`the simulator's job list answered ${response.status}`);
        return (await response.json()) as SimulatedJob[];
      },
    },
    execution: async (taskId) => {
      try {
        const { status, output } = await sfn.send(
          new DescribeExecutionCommand({ executionArn: `${executionPrefix}:${taskId}` }),
        );
        return { status: status ?? 'UNKNOWN', ...(output !== undefined && { output }) };
      } catch (error) {
        if (error instanceof ExecutionDoesNotExist) return undefined;
        throw error;
      }
    },
  };
  return shared;
}
