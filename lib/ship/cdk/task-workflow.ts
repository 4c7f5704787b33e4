/**
 * The task lifecycle state machine, defined by statemachine/task-lifecycle.asl.json: the very file the
 * local stack executes. Its `${Token}`s are filled through `definitionSubstitutions` (each workflow
 * function's ARN, the tasks table's name, the webhook queue's URL). A file definition tells CDK nothing
 * about what the machine touches, so every permission is granted here by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Aws, Fn, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine, StateMachineType } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { physicalNames, STATE_MACHINE } from '../../../functions/adapters/runtime/resources.js';
import type { WorkflowFunctionDefinition } from '../routes.js';
import { ASL_RESOURCE_TOKENS } from '../routes.js';
import { REPOSITORY_ROOT } from '../repository-root.js';

/** Every `${Token}` of an ASL text, in order of first appearance. */
export function aslTokens(definition: string): string[] {
  return [...new Set([...definition.matchAll(/\$\{(\w+)\}/g)].map((match) => match[1] as string))];
}

export function readAslDefinition(): string {
  return readFileSync(join(REPOSITORY_ROOT, STATE_MACHINE.definitionFile), 'utf8');
}

/**
 * The state machine's name in one deployment of the stack: `<prefix>-task-lifecycle-<8 hex>`, the suffix the
 * start of the stack's id (a UUID CloudFormation gives each stack it creates). Step Functions deletes a machine
 * only once its executions end, and keeps its name until then; a stack deployed again right after a teardown is
 * a new stack with a new id, so its machine never waits for the old name (docs/operations.md, "Tear down").
 * Built from the stack's id rather than left to CloudFormation, as the functions the machine calls need it.
 */
export function deployedStateMachineName(prefix: string): string {
  const stackUuid = Fn.select(2, Fn.split('/', Aws.STACK_ID));
  return Fn.join('-', [physicalNames(prefix).stateMachine, Fn.select(0, Fn.split('-', stackUuid))]);
}

export interface TaskWorkflowProps {
  readonly stateMachineName: string;
  /** Each function the ASL calls, with its definition (which names its token). */
  readonly functions: readonly { readonly definition: WorkflowFunctionDefinition; readonly handler: IFunction }[];
  /** The ASL sends failed tasks' webhooks to this queue (QueueFailureWebhook); CompleteTask queues the rest. */
  readonly webhookQueue: IQueue;
}

export class TaskWorkflow extends Construct {
  readonly stateMachine: StateMachine;
  readonly logs: LogGroup;

  constructor(scope: Construct, id: string, props: TaskWorkflowProps) {
    super(scope, id);
    // Typed by ASL_RESOURCE_TOKENS: a token added there does not compile until it gets a value here.
    const resourceValues: Record<keyof typeof ASL_RESOURCE_TOKENS, string> = {
      webhookQueueUrl: props.webhookQueue.queueUrl,
      partition: Aws.PARTITION,
    };
    const substitutions: Record<string, string> = {};
    for (const [key, token] of Object.entries(ASL_RESOURCE_TOKENS)) {
      substitutions[token] = resourceValues[key as keyof typeof ASL_RESOURCE_TOKENS];
    }
    for (const { definition, handler } of props.functions) substitutions[definition.aslToken] = handler.functionArn;

    const definition = readAslDefinition();
    const missing = aslTokens(definition).filter((token) => !(token in substitutions));
    if (missing.length > 0) {
      throw new Error(`${STATE_MACHINE.definitionFile} uses tokens with no substitution: ${missing.join(', ')}`);
    }

    this.logs = new LogGroup(this, 'Logs', {
      // The vendedlogs prefix keeps Step Functions' log delivery out of the account's resource-policy limit.
      logGroupName: `/aws/vendedlogs/states/${props.stateMachineName}`,
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stateMachine = new StateMachine(this, 'StateMachine', {
      stateMachineName: props.stateMachineName,
      stateMachineType: StateMachineType.STANDARD,
      definitionBody: DefinitionBody.fromString(definition),
      definitionSubstitutions: substitutions,
      // The state data holds ids, upstream job state and errors (no prompts): keep it for debugging.
      logs: { destination: this.logs, level: LogLevel.ALL, includeExecutionData: true },
      tracingEnabled: true,
    });

    // The ASL calls each function by the ARN given (its `live` alias in AWS, live-rollouts.ts): exactly that is granted.
    Grant.addToPrincipal({
      grantee: this.stateMachine,
      actions: ['lambda:InvokeFunction'],
      resourceArns: props.functions.map(({ handler }) => handler.functionArn),
    });
    props.webhookQueue.grantSendMessages(this.stateMachine);

    Validations.of(this.stateMachine).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'X-Ray (PutTraceSegments, PutTelemetryRecords, GetSampling*) and CloudWatch Logs delivery ' +
        '(CreateLogDelivery, ...) actions do not support resource-level permissions.',
    });
  }
}
