/**
 * Safe rollouts (docs/operations.md, "Releases"): every API and workflow function is called through its `live`
 * alias, which a CodeDeploy group shifts (canary 10 % for 5 minutes) and rolls back on the function's errors and
 * the service's; the state machine is started through its own `live` alias, shifted the same way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES, DEFAULT_ROUTE, WORKFLOW_FUNCTIONS } from '../../lib/ship/routes.js';
import { ENV } from '../../functions/adapters/runtime/config.js';
import { LIVE_ALIAS } from '../../lib/ship/cdk/live-rollouts.js';
import type { CfnResource, SynthesizedService } from './synth.js';
import { functionBehindAlias, resourcesOfType, resourceWith, synthesizeService } from './synth.js';

let service: SynthesizedService;
beforeAll(() => {
  service = synthesizeService();
}, 300_000);
afterAll(() => service?.cleanup());

const fnLogicalId = (id: string) =>
  resourceWith(service.statelessJson, 'AWS::Lambda::Function', 'FunctionName', `${service.prefix}-${id}`)[0];
const ROUTE_IDS = [...API_ROUTES.map((route) => route.id), DEFAULT_ROUTE.id];
const WORKFLOW_IDS = WORKFLOW_FUNCTIONS.map((definition) => definition.id);

describe('function aliases', () => {
  it('gives every route and workflow function (from the catalog) a `live` alias on a version kept when replaced', () => {
    const aliases = resourcesOfType(service.rolloutsJson, 'AWS::Lambda::Alias');
    expect(aliases).toHaveLength(ROUTE_IDS.length + WORKFLOW_IDS.length);
    for (const [, alias] of aliases) {
      expect(alias.Properties['Name']).toBe(LIVE_ALIAS);
      const versionId = (alias.Properties['FunctionVersion'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      const version = service.rolloutsJson.Resources[versionId] as CfnResource;
      expect(version.Type).toBe('AWS::Lambda::Version');
      expect(version.UpdateReplacePolicy).toBe('Retain');
      expect(version.DeletionPolicy ?? 'Delete').toBe('Delete');
      expect(version.Properties['FunctionName']).toEqual(alias.Properties['FunctionName']);
    }
  });

  it('has each alias shifted by a CodeDeploy group: canary 10 % for 5 minutes, rolled back on alarm', () => {
    const groups = resourcesOfType(service.rolloutsJson, 'AWS::CodeDeploy::DeploymentGroup');
    const routeIds = new Set(ROUTE_IDS);
    expect(groups).toHaveLength(ROUTE_IDS.length + WORKFLOW_IDS.length);
    for (const [groupId, group] of groups) {
      expect(group.Properties['DeploymentConfigName']).toBe('CodeDeployDefault.LambdaCanary10Percent5Minutes');
      expect(group.Properties['AutoRollbackConfiguration']).toMatchObject({
        Enabled: true,
        Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
      });
      const fnId = String(group.Properties['DeploymentGroupName']).slice(`${service.prefix}-`.length);
      const names = (
        group.Properties['AlarmConfiguration'] as { Enabled: boolean; Alarms: { Name: string }[] }
      ).Alarms.map((alarm) => alarm.Name);
      expect(names).toEqual([
        `${service.prefix}-${fnId}Errors`,
        routeIds.has(fnId) ? `${service.prefix}-Api5xxRate` : `${service.prefix}-ExecutionsFailed`,
      ]);
      // Each alias names its group in its UpdatePolicy: how CloudFormation hands the shift to CodeDeploy.
      const policies = resourcesOfType(service.rolloutsJson, 'AWS::Lambda::Alias').map(
        ([, alias]) =>
          (alias['UpdatePolicy'] as { CodeDeployLambdaAliasUpdate?: Record<string, unknown> })
            ?.CodeDeployLambdaAliasUpdate?.['DeploymentGroupName'],
      );
      expect(policies.filter((name) => JSON.stringify(name) === JSON.stringify({ Ref: groupId }))).toHaveLength(1);
    }
  });

  it('names only alarms the stateless stack makes', () => {
    const alarmNames = new Set(
      resourcesOfType(service.statelessJson, 'AWS::CloudWatch::Alarm').map(
        ([, alarm]) => alarm.Properties['AlarmName'],
      ),
    );
    for (const [, group] of resourcesOfType(service.rolloutsJson, 'AWS::CodeDeploy::DeploymentGroup')) {
      for (const { Name } of (group.Properties['AlarmConfiguration'] as { Alarms: { Name: string }[] }).Alarms) {
        expect(alarmNames.has(Name), Name).toBe(true);
      }
    }
  });

  it('routes call the aliases: every integration names a `live` alias, and API Gateway may invoke only it', () => {
    const integrations = resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::Integration');
    expect(integrations).toHaveLength(ROUTE_IDS.length);
    const called = integrations.map(([, integration]) =>
      functionBehindAlias(service, integration.Properties['IntegrationUri']),
    );
    expect(called.sort()).toEqual(ROUTE_IDS.map(fnLogicalId).sort());
    for (const [, permission] of resourcesOfType(service.statelessJson, 'AWS::Lambda::Permission')) {
      if (permission.Properties['Principal'] !== 'apigateway.amazonaws.com') continue;
      functionBehindAlias(service, permission.Properties['FunctionName']);
    }
  });
});

describe('state machine alias', () => {
  it('publishes each revision as a version kept when replaced, and shifts its `live` alias canary 10 % for 5 minutes', () => {
    const one = (type: string) => {
      const found = resourcesOfType(service.statelessJson, type);
      expect(found, type).toHaveLength(1);
      return found[0] as [string, CfnResource];
    };
    const [versionId, version] = one('AWS::StepFunctions::StateMachineVersion');
    const [machineId] = one('AWS::StepFunctions::StateMachine');
    expect(version.Properties['StateMachineRevisionId']).toEqual({
      'Fn::GetAtt': [machineId, 'StateMachineRevisionId'],
    });
    expect(version.UpdateReplacePolicy).toBe('Retain');
    expect(version.DeletionPolicy ?? 'Delete').toBe('Delete');
    const [, alias] = one('AWS::StepFunctions::StateMachineAlias');
    expect(alias.Properties['Name']).toBe(LIVE_ALIAS);
    const preference = alias.Properties['DeploymentPreference'] as Record<string, unknown>;
    expect(preference).toMatchObject({
      StateMachineVersionArn: { Ref: versionId },
      Type: 'CANARY',
      Percentage: 10,
      Interval: 5,
    });
    // Names (not ARNs) of the stack's alarms: failed executions, and each workflow function's errors.
    const alarms = preference['Alarms'] as { Ref: string }[];
    const named = alarms.map(({ Ref }) => service.statelessJson.Resources[Ref]?.Properties['AlarmName']);
    expect(named).toEqual([
      `${service.prefix}-ExecutionsFailed`,
      ...WORKFLOW_IDS.map((id) => `${service.prefix}-${id}Errors`),
    ]);
  });

  it('is what functions start executions with, and may start them', () => {
    const starters = resourcesOfType(service.statelessJson, 'AWS::Lambda::Function').filter(
      ([, fn]) =>
        (fn.Properties['Environment'] as { Variables?: Record<string, unknown> } | undefined)?.Variables?.[
          ENV.stateMachineArn.name
        ] !== undefined,
    );
    expect(starters.length).toBeGreaterThan(0);
    for (const [, fn] of starters) {
      const arn = JSON.stringify(
        (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables[ENV.stateMachineArn.name],
      );
      expect(arn).toContain(`:${LIVE_ALIAS}`);
    }
  });
});
