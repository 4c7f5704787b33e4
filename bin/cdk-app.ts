/**
 * The CDK app (`npx cdk synth`, `npx cdk deploy --all`): the two stacks of lib/cdk/video-service-stack.ts.
 * Context: `prefix` (default `vgs`) names the stacks and every resource; see configFromContext for the rest.
 * The cdk-nag AwsSolutions pack runs on every synthesis: an unacknowledged finding stops it.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { addVideoService, configFromContext } from '../lib/cdk/video-service-stack.js';

const app = new App();
addVideoService(app, configFromContext(app));
Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
app.synth();
