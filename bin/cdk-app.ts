/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy --all`): the stacks of lib/ship/cdk/video-service.ts.
 * Context (cdk.json, so a plain deploy repeats the last one): see configFromContext. A missing or wrong input
 * (SetupError) is one line naming the fix, without a stack trace. cdk-nag's AwsSolutions pack runs on every
 * synthesis: an unacknowledged finding stops it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describeAlarmDestination } from '../lib/ship/cdk/alarm-destination.js';
import { SIGNING_KEYS_CONTEXT } from '../lib/ship/cdk/video-delivery.js';
import { configFromContext } from '../lib/ship/cdk/stack-context.js';
import { addVideoService } from '../lib/ship/cdk/video-service.js';
import { SetupError } from '../lib/ship/setup-error.js';

try {
  const app = new App();
  const config = configFromContext(app);
  if (!config.signingKeys) {
    // Synthesis goes on (tests, sam local); CloudFormation refuses a deploy of it before changing anything.
    console.error(
      `No CloudFront signing key configured for prefix "${config.prefix}" (${SIGNING_KEYS_CONTEXT}.${config.prefix} ` +
        'in cdk.json): this synthesis cannot be deployed. See README, "Deploy to AWS".',
    );
  }
  // On every synthesis, so every deploy says it (an opt-out included).
  console.error(`Alarms go to: ${describeAlarmDestination(config.alarms)}`);
  addVideoService(app, config);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  app.synth();
} catch (error) {
  if (!(error instanceof SetupError)) throw error;
  console.error(`error: ${error.message}`);
  process.exit(1);
}
