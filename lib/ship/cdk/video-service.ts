/**
 * The service as three stacks: `<prefix>-stateful` holds data and identity (stateful-stack.ts), `<prefix>-stateless`
 * only computes (stateless-stack.ts) and `<prefix>-console` serves the customer console (console-stack.ts); each is
 * built from the settings of stack-context.ts.
 */
import type { App } from 'aws-cdk-lib';
import { Tags } from 'aws-cdk-lib';
import type { ConsoleSiteProps } from './console-site.js';
import { builtConsole } from './console-site.js';
import { ConsoleStack } from './console-stack.js';
import { SetupError } from '../setup-error.js';
import type { VideoServiceConfig } from './stack-context.js';
import { StatefulStack } from './stateful-stack.js';
import { StatelessStack } from './stateless-stack.js';
import { EDGE_REGION, EdgeStack } from './edge-stack.js';
import { DEFAULT_EDGE_RATE_LIMITS } from './edge-web-acl.js';

/**
 * Adds the stacks of the service to `app`. The console's site is built at synthesis (console-site.ts)
 * unless `consoleSite` gives it (tests).
 */
export function addVideoService(
  app: App,
  serviceConfig: VideoServiceConfig,
  options: { readonly consoleSite?: ConsoleSiteProps['site'] } = {},
) {
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(serviceConfig.prefix)) {
    throw new SetupError(`prefix "${serviceConfig.prefix}" must be lowercase letters, digits and dashes (at most 20)`);
  }
  // With domains, the web ACL and the CloudFront certificate come from us-east-1 (edge-stack.ts).
  const edgeStack = serviceConfig.domains
    ? new EdgeStack(app, `${serviceConfig.prefix}-edge`, {
        prefix: serviceConfig.prefix,
        domains: serviceConfig.domains,
        limits: serviceConfig.edgeRateLimits ?? DEFAULT_EDGE_RATE_LIMITS,
        env: { ...(serviceConfig.env?.account && { account: serviceConfig.env.account }), region: EDGE_REGION },
        description: 'Video generation service: the web ACL and certificate of its CloudFront distributions.',
      })
    : undefined;
  const edge = edgeStack && {
    domains: edgeStack.domains,
    certificateArn: edgeStack.certificateArn,
    webAclArn: edgeStack.webAclArn,
  };
  const stateful = new StatefulStack(app, `${serviceConfig.prefix}-stateful`, {
    serviceConfig,
    ...(edge && { edge }),
    env: serviceConfig.env,
    description: 'Video generation service: data (tables, video bucket and CDN, queues, secrets).',
    terminationProtection: true,
  });
  if (edgeStack) stateful.addStackDependency(edgeStack, 'its distributions use the web ACL and certificate');
  const stateless = new StatelessStack(app, `${serviceConfig.prefix}-stateless`, {
    serviceConfig,
    stateful,
    env: serviceConfig.env,
    description: 'Video generation service: functions, HTTP API, task state machine, schedules, alarms.',
  });
  const consoleStack = new ConsoleStack(app, `${serviceConfig.prefix}-console`, {
    serviceConfig,
    stateful,
    stateless,
    site: options.consoleSite ?? builtConsole(),
    ...(edge && { edge }),
    env: serviceConfig.env,
    description: 'Video generation service: customer console (web app bucket, CloudFront, /api/* to the HTTP API).',
  });
  Tags.of(app).add('service', 'video-generation');
  Tags.of(app).add('deployment', serviceConfig.prefix);
  return { stateful, stateless, console: consoleStack, ...(edgeStack && { edge: edgeStack }) };
}
