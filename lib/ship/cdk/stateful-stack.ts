/**
 * `<prefix>-stateful`: the service's data and identity (tables, video bucket and CDN, queues, secrets, the
 * console's user pool). Retained and termination-protected, rarely changed: the other stacks use what it holds.
 */
import type { StackProps } from 'aws-cdk-lib';
import { CfnOutput, CrossStackReferences, ReferenceStrength, Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { ConsoleUsers } from './console-users.js';
import type { VideoServiceConfig } from './stack-context.js';
import { pascal, StatefulResources } from './stateful-resources.js';
import { VideoDelivery } from './video-delivery.js';

export interface StatefulStackProps extends StackProps {
  readonly serviceConfig: VideoServiceConfig;
}

export class StatefulStack extends Stack {
  readonly data: StatefulResources;
  readonly delivery: VideoDelivery;
  readonly consoleUsers: ConsoleUsers;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { prefix } = props.serviceConfig;
    this.data = new StatefulResources(this, 'Data', {
      prefix,
      ...(props.serviceConfig.videoStorage && { videoStorage: props.serviceConfig.videoStorage }),
      ...(props.serviceConfig.tableIndexes && { tableIndexes: props.serviceConfig.tableIndexes }),
    });
    this.delivery = new VideoDelivery(this, 'VideoDelivery', {
      prefix,
      videoBucket: this.data.videoBucket,
      logBucket: this.data.accessLogsBucket,
      signingKeys: props.serviceConfig.signingKeys,
    });
    this.consoleUsers = new ConsoleUsers(this, 'ConsoleUsers', { prefix });
    // Strong references (exports) for what holds data or keys: CloudFormation then refuses to replace or remove a
    // table, bucket or secret another stack still uses, rather than leave that stack pointing at nothing
    // (cdk.json's default is weak, Fn::GetStackOutput, for everything else).
    for (const resource of [
      ...Object.values(this.data.tables),
      this.data.videoBucket,
      this.data.accessLogsBucket,
      ...Object.values(this.data.providerApiKeys),
      this.data.alipayAppPrivateKey,
      ...this.delivery.signingKeys.map((key) => key.privateKey),
    ]) {
      CrossStackReferences.of(resource).produce(ReferenceStrength.STRONG);
    }
    new CfnOutput(this, 'VideoDomain', { value: this.delivery.distribution.distributionDomainName });
    new CfnOutput(this, 'CloudFrontKeyPairId', { value: this.delivery.publicKey.publicKeyId });
    for (const [provider, key] of Object.entries(this.data.providerApiKeys)) {
      new CfnOutput(this, `${pascal(provider)}ApiKeySecretArn`, { value: key.secretArn });
    }
    new CfnOutput(this, 'AlipayAppPrivateKeySecretArn', { value: this.data.alipayAppPrivateKey.secretArn });
    // The active key's (each key's: SigningKey<id>PrivateKeySecretArn, video-delivery.ts).
    new CfnOutput(this, 'CloudFrontPrivateKeySecretArn', { value: this.delivery.privateKey.secretArn });
    // The console's sign-in: what `admin account:invite` and config.json need.
    new CfnOutput(this, 'ConsoleUserPoolId', { value: this.consoleUsers.userPool.userPoolId });
    new CfnOutput(this, 'ConsoleUserPoolClientId', { value: this.consoleUsers.client.userPoolClientId });
    new CfnOutput(this, 'ConsoleRegion', { value: this.region });
  }
}
