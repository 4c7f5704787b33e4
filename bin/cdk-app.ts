/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy --all`): the two stacks of lib/cdk/video-service-stack.ts.
 * Context (cdk.json, so a plain deploy repeats the last one): `prefix` (default `vgs`) names the stacks and
 * every resource, `cloudFrontSigningKeys` the URL signing keys; see configFromContext for the rest.
 * The cdk-nag AwsSolutions pack runs on every synthesis: an unacknowledged finding stops it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { SIGNING_KEYS_CONTEXT } from '../lib/cdk/video-delivery.js';
import { addVideoService, configFromContext } from '../lib/cdk/video-service-stack.js';

const app = new App();
const config = configFromContext(app);
if (!config.signingKeys) {
  // Synthesis goes on (tests, sam local); CloudFormation refuses a deploy of it before changing anything.
  console.error(
    `No CloudFront signing key configured for prefix "${config.prefix}" (${SIGNING_KEYS_CONTEXT}.${config.prefix} ` +
      'in cdk.json): this synthesis cannot be deployed. See README, "Deploy to AWS".',
  );
}
addVideoService(app, config);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
