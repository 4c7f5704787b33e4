/**
 * `<prefix>-console`: the customer console's hosting (its bucket, distribution and deployment). It holds
 * nothing but the build, so it is replaceable like the stateless stack.
 */
import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ConsoleSiteProps } from './console-site.js';
import { ConsoleSite } from './console-site.js';
import type { VideoServiceConfig } from './stack-context.js';
import type { StatefulStack } from './stateful-stack.js';
import type { StatelessStack } from './stateless-stack.js';
import type { EdgeAttachment } from './service-domains.js';

export interface ConsoleStackProps extends StackProps {
  readonly serviceConfig: VideoServiceConfig;
  readonly stateful: StatefulStack;
  readonly stateless: StatelessStack;
  readonly site: ConsoleSiteProps['site'];
  readonly edge?: EdgeAttachment;
}

/** The customer console's hosting: replaceable like the stateless stack (its bucket holds only the build). */
export class ConsoleStack extends Stack {
  readonly site: ConsoleSite;

  constructor(scope: Construct, id: string, props: ConsoleStackProps) {
    super(scope, id, props);
    this.addStackDependency(
      props.stateful,
      'config.json names its user pool and client; CloudFront logs to its bucket',
    );
    this.addStackDependency(props.stateless, '/api/* goes to its HTTP API');
    const { consoleUsers, data } = props.stateful;
    this.site = new ConsoleSite(this, 'Site', {
      prefix: props.serviceConfig.prefix,
      site: props.site,
      httpApi: props.stateless.api.httpApi,
      userPool: consoleUsers.userPool,
      client: consoleUsers.client,
      logBucket: data.accessLogsBucket,
      ...(props.edge && { edge: props.edge }),
    });
    new CfnOutput(this, 'ConsoleUrl', { value: this.site.url });
  }
}
