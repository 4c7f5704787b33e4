/**
 * The resources a function can use, each as one `FunctionAccess`: the environment variable its handler
 * reads at cold start (functions/adapters/*-dependencies.ts) together with the least IAM it needs.
 * Actions are listed exactly (no `grantReadWriteData`, no `index/*`): the handlers' calls are few and known.
 */
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { transcodedObjectKey } from '../../../functions/core/uploads.js';
import type { TableDefinition } from '../../../functions/adapters/runtime/resources.js';
import { STATE_MACHINE, UPLOADS, VIDEO_BUCKET } from '../../../functions/adapters/runtime/resources.js';
import type { DynamoDbAction, ExecutionAction } from '../../../functions/catalog.js';
import type { FunctionAccess } from './service-function.js';

/**
 * A table's name in the table's env var, and the given item actions on the table itself (not its
 * indexes; see `queryIndex`). With no actions the function only learns the name: a repository that
 * needs every table's name but touches only some of them. GetItem brings BatchGetItem with it: the
 * adapters read through DynamoDbItemReader, which sends reads made in the same tick as one BatchGetItem.
 */
export function table(definition: TableDefinition, resource: ITable, ...actions: DynamoDbAction[]): FunctionAccess {
  return {
    environment: { [definition.envVar]: resource.tableName },
    ...(actions.length > 0 && {
      grant: (grantee) =>
        Grant.addToPrincipal({
          grantee,
          actions: actions.flatMap((action) =>
            action === 'GetItem' ? ['dynamodb:GetItem', 'dynamodb:BatchGetItem'] : [`dynamodb:${action}`],
          ),
          resourceArns: [resource.tableArn],
        }),
    }),
  };
}

/** Query on one named index of a table (and the table's name in its env var). */
export function queryIndex(definition: TableDefinition, resource: ITable, indexName: string): FunctionAccess {
  return {
    environment: { [definition.envVar]: resource.tableName },
    grant: (grantee) =>
      Grant.addToPrincipal({
        grantee,
        actions: ['dynamodb:Query'],
        resourceArns: [`${resource.tableArn}/index/${indexName}`],
      }),
  };
}

/** The video bucket, writable under `keyPattern` (single and multipart uploads, and their abort). */
export function writeVideos(bucket: IBucket, keyPattern: string, deletes?: true): FunctionAccess {
  const objects = bucket.arnForObjects(keyPattern);
  // A video its owner deletes (docs/openai-videos.md, "Delete"): that function deletes and writes nothing.
  const actions = deletes ? ['s3:DeleteObject'] : ['s3:PutObject', 's3:AbortMultipartUpload'];
  return {
    environment: { [VIDEO_BUCKET.envVar]: bucket.bucketName },
    grant: (grantee) => Grant.addToPrincipal({ grantee, actions, resourceArns: [objects] }),
    wildcardResources: [
      {
        arn: objects,
        reason:
          'Videos are objects named by task (videos/<account>/<task>.mp4): the grant is limited to the videos/ ' +
          'prefix of the one video bucket, never the bucket as a whole.',
      },
    ],
  };
}

/**
 * Customer uploads in the video bucket (UPLOADS.prefix): the given object actions there, and ListBucket limited
 * to that prefix, so that S3 answers a missing upload 404 rather than 403 (the submit says "nothing uploaded yet").
 */
export function uploadObjects(bucket: IBucket, ...actions: ('GetObject' | 'PutObject')[]): FunctionAccess {
  const objects = bucket.arnForObjects(`${UPLOADS.prefix}*`);
  return {
    environment: { [VIDEO_BUCKET.envVar]: bucket.bucketName },
    grant: (grantee) => {
      Grant.addToPrincipal({ grantee, actions: actions.map((action) => `s3:${action}`), resourceArns: [objects] });
      Grant.addToPrincipal({
        grantee,
        actions: ['s3:ListBucket'],
        resourceArns: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${UPLOADS.prefix}*`] } },
      });
    },
    wildcardResources: [
      {
        arn: objects,
        reason:
          'Uploads are objects named by account and upload id (uploads/<account>/<id>), unknown in advance: the ' +
          'grant is limited to the uploads/ prefix of the one video bucket, never the bucket as a whole.',
      },
    ],
  };
}

/**
 * What the transcoder of untrusted media may touch (docs/security.md, "Untrusted media"): read uploads, write
 * only their H.264 copies (`<key>.h264.mp4`), and ListBucket on the prefix (a missing copy answers 404).
 */
export function transcodeUploads(bucket: IBucket): FunctionAccess {
  const uploads = bucket.arnForObjects(`${UPLOADS.prefix}*`);
  const copies = bucket.arnForObjects(transcodedObjectKey(`${UPLOADS.prefix}*`));
  return {
    environment: { [VIDEO_BUCKET.envVar]: bucket.bucketName },
    grant: (grantee) => {
      Grant.addToPrincipal({ grantee, actions: ['s3:GetObject'], resourceArns: [uploads] });
      Grant.addToPrincipal({ grantee, actions: ['s3:PutObject'], resourceArns: [copies] });
      Grant.addToPrincipal({
        grantee,
        actions: ['s3:ListBucket'],
        resourceArns: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${UPLOADS.prefix}*`] } },
      });
    },
    wildcardResources: [uploads, copies].map((arn) => ({
      arn,
      reason:
        'Uploads are objects named by account and upload id (uploads/<account>/<id>), unknown in advance: the ' +
        'grant is limited to the uploads/ prefix (writes to their .h264.mp4 copies) of the one video bucket.',
    })),
  };
}

/** The right to invoke one function, whose name goes in `envVar` (by name: the functions are made one by one). */
export function invokeFunction(envVar: string, functionName: string, functionArn: string): FunctionAccess {
  return {
    environment: { [envVar]: functionName },
    grant: (grantee) =>
      Grant.addToPrincipal({ grantee, actions: ['lambda:InvokeFunction'], resourceArns: [functionArn] }),
  };
}

/**
 * The task lifecycle state machine (its ARN, or its alias's: executions then start on the version the alias
 * points at, "How Step Functions associates executions with a version or alias", Step Functions guide), whose
 * executions the function may start and, given `executionActions`, stop or describe. Executions are named by
 * task, so those grants cover `execution:<state machine name>:*`: that machine's executions only.
 */
export function taskExecutions(
  stateMachine: IStateMachine,
  stateMachineName: string,
  options: { start: boolean; executionActions?: ExecutionAction[]; alias?: string },
): FunctionAccess {
  const target = options.alias ? `${stateMachine.stateMachineArn}:${options.alias}` : stateMachine.stateMachineArn;
  const executions = Stack.of(stateMachine).formatArn({
    service: 'states',
    resource: 'execution',
    resourceName: `${stateMachineName}:*`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
  const executionActions = options.executionActions ?? [];
  return {
    environment: { [STATE_MACHINE.envVar]: target },
    grant: (grantee) => {
      if (options.start) {
        stateMachine.grantStartExecution(grantee);
        if (options.alias)
          Grant.addToPrincipal({ grantee, actions: ['states:StartExecution'], resourceArns: [target] });
      }
      if (executionActions.length > 0) {
        Grant.addToPrincipal({
          grantee,
          actions: executionActions.map((action) => `states:${action}`),
          resourceArns: [executions],
        });
      }
    },
    ...(executionActions.length > 0 && {
      wildcardResources: [
        {
          arn: executions,
          reason:
            'Execution names are task ids, unknown in advance: the grant covers the executions of the one task ' +
            'lifecycle state machine only.',
        },
      ],
    }),
  };
}

/**
 * The webhook queue's URL in `envVar`, and the right to send to it (retries, hops, requeued webhooks) and to
 * its dead-letter queue (parked messages), whose URL the handlers derive from the queue's.
 */
export function sendWebhookMessages(envVar: string, queue: IQueue, deadLetterQueue: IQueue): FunctionAccess {
  return {
    environment: { [envVar]: queue.queueUrl },
    grant: (grantee) =>
      Grant.addToPrincipal({
        grantee,
        actions: ['sqs:SendMessage'],
        resourceArns: [queue.queueArn, deadLetterQueue.queueArn],
      }),
  };
}

/**
 * A secret's ARN (never its value) in `envVar`, and permission to read it: on the secret, and decrypt with its
 * key only through Secrets Manager. Both in the function's own policy (grantRead would write the role into the
 * key's policy, in the stateful stack: a reference back to this one). The secret's own policy names the role
 * too (secret-readers.ts).
 */
export function secret(envVar: string, resource: ISecret): FunctionAccess {
  return {
    environment: { [envVar]: resource.secretArn },
    grant: (grantee) => {
      Grant.addToPrincipal({
        grantee,
        actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
        resourceArns: [resource.secretArn],
      });
      if (resource.encryptionKey) {
        Grant.addToPrincipal({
          grantee,
          actions: ['kms:Decrypt'],
          resourceArns: [resource.encryptionKey.keyArn],
          conditions: {
            StringEquals: { 'kms:ViaService': `secretsmanager.${Stack.of(resource).region}.amazonaws.com` },
          },
        });
      }
    },
  };
}

/**
 * The right to answer the task tokens of the lifecycle's executions (SendTaskSuccess/SendTaskFailure): the
 * steps that wake a waiting execution. By name, as the functions are created before the state machine.
 */
export function answerTaskTokens(stateMachine: IStateMachine): FunctionAccess {
  return {
    environment: {},
    grant: (grantee) =>
      Grant.addToPrincipal({
        grantee,
        actions: ['states:SendTaskSuccess', 'states:SendTaskFailure'],
        resourceArns: [stateMachine.stateMachineArn],
      }),
  };
}

/** Plain configuration values. */
export function config(environment: Record<string, string>): FunctionAccess {
  return { environment };
}
