/**
 * With the CloudFront public key given as CDK context (`-c cloudFrontPublicKeyPem=...`), it is used as is
 * and no deploy-time parameter is asked for. (Without it, see video-service-stack.test.ts.)
 */
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PUBLIC_KEY_CONTEXT, PUBLIC_KEY_PARAMETER } from '../../lib/cdk/video-delivery.js';
import type { SynthesizedService } from './synth.js';
import { synthesizeService } from './synth.js';

const PEM = '-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest\n-----END PUBLIC KEY-----\n';

let service: SynthesizedService;
beforeAll(() => {
  service = synthesizeService({ context: { [PUBLIC_KEY_CONTEXT]: PEM, prefix: 'dev-x' } });
}, 120_000);
afterAll(() => service?.cleanup());

it('uses the context value as the public key and asks for no parameter', () => {
  expect(service.stateful.findParameters(PUBLIC_KEY_PARAMETER)).toEqual({});
  service.stateful.hasResourceProperties('AWS::CloudFront::PublicKey', {
    PublicKeyConfig: Match.objectLike({ EncodedKey: PEM }),
  });
});

it('names the stacks and resources from the prefix context', () => {
  expect(service.stacks.stateful.stackName).toBe('dev-x-stateful');
  expect(service.stacks.stateless.stackName).toBe('dev-x-stateless');
  service.stateful.hasResourceProperties('AWS::DynamoDB::Table', { TableName: 'dev-x-tasks' });
  service.stateless.hasResourceProperties('AWS::StepFunctions::StateMachine', {
    StateMachineName: 'dev-x-task-lifecycle',
  });
});
