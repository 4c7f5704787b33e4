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
import type { EdgeAttachment } from './service-domains.js';
import { ServiceDomains } from './service-domains.js';
import { restrictReads, secretReaders } from './secret-readers.js';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';

export interface StatefulStackProps extends StackProps {
  readonly serviceConfig: VideoServiceConfig;
  /** The web ACL, certificate and names of the edge (edge-stack.ts); unset: no custom domain. */
  readonly edge?: EdgeAttachment;
}

export class StatefulStack extends Stack {
  readonly data: StatefulResources;
  readonly delivery: VideoDelivery;
  readonly consoleUsers: ConsoleUsers;
  readonly domains: ServiceDomains | undefined;

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
      secretsKey: this.data.secretsKey,
      ...(props.edge && { edge: props.edge }),
    });
    this.domains =
      props.edge &&
      new ServiceDomains(this, 'Domains', { prefix, edge: props.edge, logBucket: this.data.accessLogsBucket });
    if (this.domains) {
      new CfnOutput(this, 'ApiDomain', { value: props.edge?.domains.api ?? '' });
      new CfnOutput(this, 'ApiDistributionDomain', { value: this.domains.apiDistribution.distributionDomainName });
      new CfnOutput(this, 'ApiOriginDnsTarget', { value: this.domains.apiOriginDomain.regionalDomainName });
    }
    this.consoleUsers = new ConsoleUsers(this, 'ConsoleUsers', { prefix });
    // Each secret readable only by the functions the catalog says read it (secret-readers.ts); a signing key that
    // is not the active one is read by none.
    const readers = secretReaders();
    const secrets: [string, Secret][] = [
      ...Object.entries(this.data.providerApiKeys),
      ['alipayAppPrivateKey', this.data.alipayAppPrivateKey],
      ...this.delivery.signingKeys.map(
        ({ privateKey }) =>
          [privateKey === this.delivery.privateKey ? 'cloudFrontPrivateKey' : 'inactive', privateKey] as [
            string,
            Secret,
          ],
      ),
    ];
    for (const [name, secret] of secrets) restrictReads(secret, prefix, readers[name] ?? []);
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
    new CfnOutput(this, 'VideoDomain', { value: this.delivery.domainName });
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
