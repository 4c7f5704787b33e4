/**
 * The one way this project makes a Lambda function: the defaults are fixed here (Node.js 24 on arm64,
 * the ESM bundle the local stack runs (lambda-code.ts), its own log group
 * with retention, X-Ray tracing), and a function's access to a resource (the environment variable that
 * names it and the IAM grant to use it) is given in one call, `uses(...)`.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type { IGrantable } from 'aws-cdk-lib/aws-iam';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Function as LambdaFunction, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { bundledCode } from './lambda-code.js';
import { wildcardResourceFinding } from './nag-findings.js';

/** Environment every function gets: logging service name and level, TS stack traces from the source maps. */
const COMMON_ENVIRONMENT = {
  POWERTOOLS_SERVICE_NAME: 'video-generation',
  POWERTOOLS_LOG_LEVEL: 'INFO',
  NODE_OPTIONS: '--enable-source-maps',
};

/**
 * What a function needs from one resource: the environment variables that tell it where the resource
 * is, and the grant that lets it act on it. Built by the helpers in function-access.ts.
 */
export interface FunctionAccess {
  readonly environment: Readonly<Record<string, string>>;
  readonly grant?: (grantee: IGrantable) => void;
  /** Resources the grant gives with a wildcard (`videos/*`), each with why that is the least possible. */
  readonly wildcardResources?: readonly { readonly arn: string; readonly reason: string }[];
}

export interface ServiceFunctionProps {
  /** Handler module, relative to the repository root (an `entry` of lib/ship/routes.ts). */
  readonly entry: string;
  /** Physical function name. */
  readonly functionName: string;
  readonly description?: string;
  /** @default 10 seconds */
  readonly timeout?: Duration;
  /** @default 512 MB */
  readonly memorySize?: number;
  /** @default one month */
  readonly logRetention?: RetentionDays;
  /** What the function uses; more can be added with `uses(...)`. */
  readonly uses?: readonly FunctionAccess[];
  /** @default arm64; x86_64 only where a native binary needs it (ffmpeg: lib/ship/build/ffmpeg-binary.ts) */
  readonly architecture?: Architecture;
  readonly layers?: readonly ILayerVersion[];
  /** The role's name, fixed so the stateful stack's secret policies can name it (secret-readers.ts). */
  readonly roleName?: string;
}

export class ServiceFunction extends LambdaFunction {
  /** Where the function logs (created here, so retention is set before the first invocation). */
  readonly logs: LogGroup;
  /** Its execution role: where its grants, and the findings about them, are. */
  readonly executionRole: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    // The log group is created as a sibling, before the function, so it can be passed in.
    const logs = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A sibling too, so it can have a fixed name: Lambda's own default role cannot be named.
    const role = new Role(scope, `${id}ServiceRole`, {
      ...(props.roleName && { roleName: props.roleName }),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
    });
    super(scope, id, {
      role,
      code: bundledCode(props.entry),
      handler: 'index.handler',
      functionName: props.functionName,
      description: props.description,
      // Node.js 24: Lambda deprecates a runtime when Node.js ends it, Node 22 on 2027-04-30 ("Lambda runtimes",
      // Lambda guide); the bundles target it too (lib/ship/build/lambda-bundle-options.ts).
      runtime: Runtime.NODEJS_24_X,
      architecture: props.architecture ?? Architecture.ARM_64,
      ...(props.layers && { layers: [...props.layers] }),
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      tracing: Tracing.ACTIVE,
      logGroup: logs,
      environment: { ...COMMON_ENVIRONMENT },
    });
    this.logs = logs;
    this.executionRole = role;
    this.uses(...(props.uses ?? []));
    Validations.of(role).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          'AWSLambdaBasicExecutionRole only allows writing the function’s own CloudWatch logs; it is the standard ' +
          'Lambda execution policy.',
      },
      {
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'X-Ray tracing (xray:PutTraceSegments, xray:PutTelemetryRecords) has no resource-level permissions; nor ' +
          'has dynamodb:ListStreams, which the task starter’s stream event source adds (its stream reads are on the ' +
          'tasks stream only).',
      },
    );
  }

  /** Gives the function each resource's environment variables and grants, in one call. */
  uses(...accesses: readonly FunctionAccess[]): this {
    for (const access of accesses) {
      for (const [name, value] of Object.entries(access.environment)) this.addEnvironment(name, value);
      access.grant?.(this);
      for (const { arn, reason } of access.wildcardResources ?? []) {
        Validations.of(this.executionRole).acknowledge({ id: wildcardResourceFinding(this, arn), reason });
      }
    }
    return this;
  }
}
