/**
 * What an infra team relies on after day one, from the template: alarms reach the destination the deployment
 * names (or the deploy is refused), throttles and DynamoDB throttling alarm, a dashboard shows the service,
 * the workflow's functions reserve concurrency and each route's throttle fits in what the API's share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alarmDestination, MISSING_ALARMS_PARAMETER } from '../../lib/ship/cdk/alarm-destination.js';
import {
  apiConcurrency,
  DEFAULT_LAMBDA_CONCURRENCY_QUOTA,
  MIN_UNRESERVED_CONCURRENCY,
  RESERVED_CONCURRENCY,
  TOTAL_RESERVED,
} from '../../lib/ship/cdk/concurrency.js';
import {
  ACCOUNT_API_BURST,
  ACCOUNT_API_RATE,
  ROUTE_BUDGETS,
  routeThrottles,
} from '../../lib/ship/cdk/route-throttles.js';
import { SetupError } from '../../lib/ship/setup-error.js';
import { videoStorageFromContext } from '../../lib/ship/cdk/stack-context.js';
import { TABLES } from '../../functions/adapters/runtime/resources.js';
import { ENV } from '../../functions/adapters/runtime/config.js';
import { ALL_FUNCTIONS, API_ROUTES, DEFAULT_ROUTE } from '../../lib/ship/routes.js';
import { CONSOLE_SHARE, functionById } from '../../functions/catalog.js';
import type { CfnResource, SynthesizedService } from './synth.js';
import { resourcesOfType, resourceWith, synthesizeService } from './synth.js';

const TOPIC_ARN = 'arn:aws-cn:sns:cn-north-1:123456789012:ops-pager';
let service: SynthesizedService;
beforeAll(() => {
  // ticketsTo unset (explicitly: the committed stage names one): tickets go where alarmsTo says.
  service = synthesizeService({ context: { alarmsTo: TOPIC_ARN, ticketsTo: '' } });
}, 300_000);
afterAll(() => service?.cleanup());

const alarms = () => resourcesOfType(service.statelessJson, 'AWS::CloudWatch::Alarm').map(([, alarm]) => alarm);
const alarmNamed = (name: string): CfnResource => {
  const found = alarms().find((alarm) => alarm.Properties['AlarmName'] === `${service.prefix}-${name}`);
  if (!found) throw new Error(`no alarm ${name}`);
  return found;
};
const functionNamed = (id: string): CfnResource =>
  resourceWith(service.statelessJson, 'AWS::Lambda::Function', 'FunctionName', `${service.prefix}-${id}`)[1];

describe('where alarms go', () => {
  it('reads an email, an SNS topic ARN (any partition) or an explicit none; refuses anything else in one line', () => {
    expect(alarmDestination('ops@example.com', undefined)).toEqual({ kind: 'email', address: 'ops@example.com' });
    expect(alarmDestination(TOPIC_ARN, undefined)).toEqual({ kind: 'topic', arn: TOPIC_ARN });
    expect(alarmDestination('none', undefined)).toEqual({ kind: 'none' });
    // The older key still works, alone.
    expect(alarmDestination(undefined, 'ops@example.com')).toEqual({ kind: 'email', address: 'ops@example.com' });
    expect(alarmDestination(undefined, undefined)).toBeUndefined();
    expect(() => alarmDestination('pager', undefined)).toThrow(SetupError);
    expect(() => alarmDestination('none', 'ops@example.com')).toThrow(/both set/);
  });

  it('sends every alarm, and its recovery, to the named topic; makes no topic of its own', () => {
    expect(resourcesOfType(service.statelessJson, 'AWS::SNS::Topic')).toHaveLength(0);
    expect(alarms().length).toBeGreaterThan(40);
    for (const alarm of alarms()) {
      expect(alarm.Properties['AlarmActions'], String(alarm.Properties['AlarmName'])).toEqual([TOPIC_ARN]);
      expect(alarm.Properties['OKActions']).toEqual([TOPIC_ARN]);
    }
    expect(service.statelessJson.Outputs?.['AlarmsGoTo']?.Value).toBe(`SNS topic ${TOPIC_ARN}`);
  });

  it('cannot be deployed without a destination: a parameter no value satisfies names the fix', () => {
    const unnamed = synthesizeService({ context: { alarmsTo: '' } });
    try {
      const parameters = (unnamed.statelessJson as { Parameters?: Record<string, Record<string, unknown>> }).Parameters;
      expect(parameters?.[MISSING_ALARMS_PARAMETER]).toMatchObject({ AllowedPattern: '^$', MinLength: 1 });
      expect(parameters?.[MISSING_ALARMS_PARAMETER]).not.toHaveProperty('Default');
      expect(String(parameters?.[MISSING_ALARMS_PARAMETER]?.['ConstraintDescription'])).toContain('alarmsTo');
    } finally {
      unnamed.cleanup();
    }
  }, 300_000);
});

describe('alarms for day two', () => {
  it('alarms on a throttle of any function with reserved concurrency, and on the Region’s throttles', () => {
    for (const id of Object.keys(RESERVED_CONCURRENCY)) {
      const alarm = alarmNamed(`${id}Throttles`);
      expect(alarm.Properties).toMatchObject({ MetricName: 'Throttles', Namespace: 'AWS/Lambda', Threshold: 1 });
    }
    expect(alarmNamed('LambdaThrottles').Properties).toMatchObject({ MetricName: 'Throttles', Threshold: 1 });
    expect(alarmNamed('LambdaThrottles').Properties).not.toHaveProperty('Dimensions');
  });

  it('alarms on DynamoDB read or write throttling of every table', () => {
    for (const tableId of Object.keys(TABLES)) {
      const alarm = alarmNamed(`${tableId.charAt(0).toUpperCase()}${tableId.slice(1)}TableThrottled`);
      const metrics = JSON.stringify(alarm.Properties['Metrics']);
      expect(metrics).toContain('ReadThrottleEvents');
      expect(metrics).toContain('WriteThrottleEvents');
    }
  });

  it('alarms on refunds above a rate of submits, and keeps the webhook DLQ and failed/timed-out executions', () => {
    const refunds = JSON.stringify(alarmNamed('RefundRate').Properties['Metrics']);
    expect(refunds).toContain('TasksRefunded');
    expect(refunds).toContain('TasksSubmitted');
    alarmNamed('WebhookDlqDepth');
    alarmNamed('ExecutionsFailed');
    alarmNamed('ExecutionsTimedOut');
  });

  it('has a dashboard with tasks, the waiting room, upstream errors, the webhook backlog and every alarm', () => {
    const [[, dashboard]] = resourcesOfType(service.statelessJson, 'AWS::CloudWatch::Dashboard') as [
      [string, CfnResource],
    ];
    const body = JSON.stringify(dashboard.Properties['DashboardBody']);
    for (const metric of ['TasksSubmitted', 'TasksSucceeded', 'TasksFailed', 'TasksRefunded']) {
      expect(body).toContain(metric);
    }
    for (const text of ['UpstreamStartsDeferred', 'UpstreamErrors', 'Webhook backlog', 'dead-letter', 'alarm']) {
      expect(body).toContain(text);
    }
  });
});

describe('the workflow cannot be starved', () => {
  it('reserves concurrency for every workflow step, the webhook consumer and the task starter', () => {
    for (const [id, count] of Object.entries(RESERVED_CONCURRENCY)) {
      expect(ALL_FUNCTIONS.some((definition) => definition.id === id)).toBe(true);
      expect(functionNamed(id).Properties['ReservedConcurrentExecutions'], id).toBe(count);
    }
    for (const id of ['PrepareInputs', 'StartUpstream', 'AwaitCompletion', 'TransferVideo', 'FailAndRefund']) {
      expect(RESERVED_CONCURRENCY).toHaveProperty(id);
    }
    // Lambda keeps 100 unreserved: the default quota must leave that.
    expect(DEFAULT_LAMBDA_CONCURRENCY_QUOTA - TOTAL_RESERVED).toBeGreaterThanOrEqual(MIN_UNRESERVED_CONCURRENCY);
    // API functions reserve nothing: they share the rest.
    expect(functionNamed('SubmitTask').Properties).not.toHaveProperty('ReservedConcurrentExecutions');
  });

  it('gives every route a throttle whose steady load fits in the executions the API shares (Little’s law)', () => {
    const [[, stage]] = resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::Stage') as [[string, CfnResource]];
    const settings = stage.Properties['RouteSettings'] as Record<
      string,
      { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }
    >;
    for (const route of API_ROUTES) expect(settings, route.id).toHaveProperty(`${route.method} ${route.path}`);
    expect(settings).toHaveProperty('$default');
    const pool = apiConcurrency(DEFAULT_LAMBDA_CONCURRENCY_QUOTA);
    const shares = Object.values(ROUTE_BUDGETS).reduce((sum, budget) => sum + budget.share, 0);
    // The public routes, the console's and `$default` together: never more than the pool.
    const fallback = functionById(DEFAULT_ROUTE.id).throttle?.share ?? 0;
    expect(shares + CONSOLE_SHARE + fallback).toBeLessThanOrEqual(1 + 1e-9);
    let busy = 0;
    for (const route of API_ROUTES) {
      const budget = ROUTE_BUDGETS[route.id];
      const { ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst } = settings[`${route.method} ${route.path}`]!;
      expect(rate).toBeLessThanOrEqual(ACCOUNT_API_RATE);
      expect(burst).toBeLessThanOrEqual(ACCOUNT_API_BURST);
      if (budget) busy += rate * budget.seconds;
    }
    expect(busy).toBeLessThanOrEqual(pool);
    expect(routeThrottles(pool)).toHaveLength(API_ROUTES.length + 1);
  });

  it('keeps the upstream callback secret out of the access log: the route key, not the raw path', () => {
    const [[, stage]] = resourcesOfType(service.statelessJson, 'AWS::ApiGatewayV2::Stage') as [[string, CfnResource]];
    const format = (stage.Properties['AccessLogSettings'] as { Format: string }).Format;
    expect(format).toContain('$context.routeKey');
    expect(format).not.toMatch(/\$context\.(path|rawPath|resourcePath)|\$request\.path/);
  });
});

describe('video storage policy', () => {
  it('keeps videos by default and moves them to Standard-IA after 30 days; uploads keep their own expiry', () => {
    const [[, bucket]] = resourcesOfType(service.statefulJson, 'AWS::S3::Bucket').filter(([id]) =>
      id.includes('VideoBucket'),
    ) as [[string, CfnResource]];
    const rules = (bucket.Properties['LifecycleConfiguration'] as { Rules: Record<string, unknown>[] }).Rules;
    const videos = rules.find((rule) => rule['Id'] === 'videos-storage-policy');
    expect(videos).toMatchObject({
      Prefix: 'videos/',
      Status: 'Enabled',
      Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 30 }],
    });
    expect(videos).not.toHaveProperty('ExpirationInDays');
    expect(rules.find((rule) => rule['Id'] === 'expire-uploads')).toMatchObject({ ExpirationInDays: 2 });
  });

  it('reads tiering and retention from context, refusing what S3 would refuse', () => {
    expect(videoStorageFromContext(undefined, undefined)).toEqual({ infrequentAccessAfterDays: 30 });
    expect(videoStorageFromContext('none', undefined)).toEqual({});
    expect(videoStorageFromContext('60', '365')).toEqual({ infrequentAccessAfterDays: 60, expireAfterDays: 365 });
    expect(videoStorageFromContext('none', '7')).toEqual({ expireAfterDays: 7 });
    expect(() => videoStorageFromContext('10', undefined)).toThrow(SetupError);
    expect(() => videoStorageFromContext('30', '30')).toThrow(/more than/);
    expect(() => videoStorageFromContext(undefined, 'forever')).toThrow(SetupError);
  });

  it('tells the functions that answer video URLs how long videos are kept, so a deleted one gets no URL', () => {
    const kept = resourceWith(service.statelessJson, 'AWS::Lambda::Function', 'FunctionName', 'vgs-GetTask')[1];
    expect(JSON.stringify(kept.Properties['Environment'])).not.toContain(ENV.videoRetentionDays.name);
    const retained = synthesizeService({ context: { videoRetentionDays: '400' } });
    try {
      for (const id of ['GetTask', 'ListTasks', 'ConsoleGetTask', 'ConsoleListTasks']) {
        const [, fn] = resourceWith(retained.statelessJson, 'AWS::Lambda::Function', 'FunctionName', `vgs-${id}`);
        const env = (fn.Properties['Environment'] as { Variables: Record<string, string> }).Variables;
        expect(env[ENV.videoRetentionDays.name], id).toBe('400');
      }
    } finally {
      retained.cleanup();
    }
  }, 240_000);
});
