/**
 * Safe rollouts (docs/operations.md, "Releases"): each API and workflow function is called through its `live`
 * alias, which CodeDeploy moves to a new version 10 % of calls for 5 minutes, then all, and moves back by itself
 * when an alarm fires ("Working with deployment configurations in CodeDeploy", CodeDeploy guide).
 */
import { createHash } from 'node:crypto';
import { CfnDeletionPolicy, Lazy, NestedStack, Stack, Validations } from 'aws-cdk-lib';
import type { CfnResource } from 'aws-cdk-lib';
import { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Function as LambdaFunction, Version } from 'aws-cdk-lib/aws-lambda';
import type { CfnFunction, IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';

/** The alias every caller in AWS names (routes, the state machine); the local stack calls handlers in-process. */
export const LIVE_ALIAS = 'live';
/** Canary, then all: 10 % of calls for 5 minutes, one period of the alarms (service-metric.ts) to judge it. */
export const ROLLOUT_CONFIG = LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES;

export interface LiveRolloutsProps {
  readonly prefix: string;
  /** Each function to roll out, by id, with the names of the alarms that roll it back (alarms.ts, alarmName). */
  readonly functions: readonly { readonly id: string; readonly handler: LambdaFunction; readonly alarms: string[] }[];
}

/**
 * A nested stack of the stateless stack with every version, `live` alias and deployment group: the stateless
 * stack alone would pass CloudFormation's 500 resources. It refers to the functions only (their names, and
 * the alarms by fixed name), never back to what calls the aliases, so nothing cycles.
 */
export class LiveRollouts extends NestedStack {
  readonly application: LambdaApplication;
  /** Each function's `live` alias, by id, as the stateless stack sees it (its ARN is an output of this stack). */
  readonly targets: Readonly<Record<string, IFunction>>;
  readonly groups: readonly { readonly id: string; readonly alias: Alias; readonly group: LambdaDeploymentGroup }[];

  constructor(scope: Construct, id: string, props: LiveRolloutsProps) {
    super(scope, id, { description: 'Video generation service: live aliases and their CodeDeploy rollouts.' });
    const applicationName = `${props.prefix}-functions`;
    this.application = new LambdaApplication(this, 'Application', { applicationName });
    // One role for every group: CodeDeploy's limited Lambda policy (update aliases, read alarms, invoke hooks).
    const role = new Role(this, 'DeployRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited')],
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        'CodeDeploy’s own limited policy for Lambda deployments (update an alias of the function it deploys, read ' +
        'alarms, invoke hooks): the service role CodeDeploy documents for AWS Lambda.',
    });
    const targets: Record<string, IFunction> = {};
    this.groups = props.functions.map(({ id: fnId, handler, alarms }) => {
      if (alarms.length === 0) throw new Error(`${fnId}: a rollout needs an alarm to roll back on`);
      // A new version whenever the function's code or configuration changes, as Function.currentVersion does
      // in the function's own stack: the description carries a hash of the function's properties. Kept when
      // replaced, so CodeDeploy can shift back to it; a teardown deletes it with its function.
      const version = new Version(this, `${fnId}Version`, {
        lambda: handler,
        description: Lazy.string({ produce: () => `${fnId} ${functionHash(handler)}` }),
      });
      const cfnVersion = version.node.defaultChild as CfnResource;
      cfnVersion.cfnOptions.deletionPolicy = CfnDeletionPolicy.DELETE;
      cfnVersion.cfnOptions.updateReplacePolicy = CfnDeletionPolicy.RETAIN;
      const alias = new Alias(this, `${fnId}LiveAlias`, { aliasName: LIVE_ALIAS, version });
      const group = new LambdaDeploymentGroup(this, `${fnId}DeploymentGroup`, {
        application: this.application,
        deploymentGroupName: `${props.prefix}-${fnId}`,
        alias,
        role,
        deploymentConfig: ROLLOUT_CONFIG,
        // By fixed name: the alarms live in the stateless stack and watch what calls these aliases.
        alarms: alarms.map((name, n) => Alarm.fromAlarmName(this, `${fnId}Alarm${n}`, name)),
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      // What the stateless stack's routes and state machine call, made there so their permissions are too.
      targets[fnId] = LambdaFunction.fromFunctionAttributes(scope, `${fnId}LiveTarget`, {
        functionArn: alias.functionArn,
        sameEnvironment: true,
      });
      return { id: fnId, alias, group };
    });
    this.targets = targets;
  }
}

/** A hash of the function's template properties (code asset, configuration): it changes when a version must. */
function functionHash(handler: LambdaFunction): string {
  const cfn = handler.node.defaultChild as CfnFunction;
  const properties: unknown = Stack.of(handler).resolve(
    (cfn as unknown as { _toCloudFormation(): unknown })._toCloudFormation(),
  );
  return createHash('sha256').update(JSON.stringify(properties)).digest('hex').slice(0, 16);
}
