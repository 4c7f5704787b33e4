/**
 * The task state machine's `live` alias, what the functions start executions with: each revision is published
 * as a version, and the alias moves to it 10 % of new executions for 5 minutes first, back to the previous
 * version if an alarm fires ("Managing continuous deployments with aliases in Step Functions", Step Functions guide).
 */
import { CfnDeletionPolicy } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
import { CfnStateMachineAlias, CfnStateMachineVersion } from 'aws-cdk-lib/aws-stepfunctions';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { LIVE_ALIAS } from './live-rollouts.js';

export class StateMachineLiveAlias extends Construct {
  readonly version: CfnStateMachineVersion;
  readonly alias: CfnStateMachineAlias;

  constructor(
    scope: Construct,
    id: string,
    props: { readonly stateMachine: StateMachine; readonly alarms: readonly IAlarm[] },
  ) {
    super(scope, id);
    // A new version whenever the revision changes (its id is the version's StateMachineRevisionId, whose change
    // replaces it). A replaced one is kept: executions that started on it run for hours (a 6 h deadline); a
    // teardown deletes them all with the machine.
    this.version = new CfnStateMachineVersion(this, 'Version', {
      stateMachineArn: props.stateMachine.stateMachineArn,
      stateMachineRevisionId: props.stateMachine.stateMachineRevisionId,
      description: 'Published by the stack on each change of the definition or configuration',
    });
    this.version.cfnOptions.deletionPolicy = CfnDeletionPolicy.DELETE;
    this.version.cfnOptions.updateReplacePolicy = CfnDeletionPolicy.RETAIN;
    this.alias = new CfnStateMachineAlias(this, 'Alias', {
      name: LIVE_ALIAS,
      description: 'What the functions start executions with (STATE_MACHINE_ARN)',
      deploymentPreference: {
        stateMachineVersionArn: this.version.ref,
        type: 'CANARY',
        percentage: 10,
        interval: 5,
        // By name: "If you provide ... the ARN of an alarm instead of its name, your deployment may not roll back
        // correctly" (AWS::StepFunctions::StateMachineAlias DeploymentPreference, CloudFormation reference).
        alarms: props.alarms.map((alarm) => alarm.alarmName),
      },
    });
  }
}
