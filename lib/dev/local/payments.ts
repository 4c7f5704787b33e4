/**
 * The local stack's Alipay (docs/local-stack.md, "Top-ups"): its simulator, with a key pair for our app and one
 * for "Alipay" made at each start, or, when `ALIPAY_APP_ID` and the keys are set (bin/local.ts), the gateway
 * they name. The handlers get the same variables either way.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { PaymentEndpoint } from '../../ship/sam-local/handler-environment.js';
import { startAlipaySimulator } from '../simulators/alipay/simulator.js';
import type { RunningAlipaySimulator } from '../simulators/alipay/simulator.js';

/** `simulator`: the project's own; `real`: the gateway and keys the operator gave. */
export type PaymentChoice = { kind: 'simulator' } | ({ kind: 'real' } & PaymentEndpoint);

export interface LocalPayments {
  endpoint: PaymentEndpoint;
  /** The simulator, when simulated: tests pay orders and read its notifications through it. */
  simulator?: RunningAlipaySimulator;
  close(): Promise<void>;
}

/** The app id the simulator knows ours by (Alipay's app ids are 16 digits). */
export const SIMULATED_APP_ID = '2021000000000001';

function keyPair() {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

export async function startPayments(
  choice: PaymentChoice = { kind: 'simulator' },
  notifyRetryMs?: readonly number[],
): Promise<LocalPayments> {
  if (choice.kind === 'real') {
    const { kind: _kind, ...endpoint } = choice;
    return { endpoint, close: async () => {} };
  }
  const app = keyPair();
  const alipay = keyPair();
  const simulator = await startAlipaySimulator({
    appId: SIMULATED_APP_ID,
    appPublicKey: app.publicKey,
    alipayPrivateKey: alipay.privateKey,
    ...(notifyRetryMs && { notifyRetryMs }),
  });
  return {
    endpoint: {
      gatewayUrl: simulator.gatewayUrl,
      appId: SIMULATED_APP_ID,
      appPrivateKey: app.privateKey,
      alipayPublicKey: alipay.publicKey,
    },
    simulator,
    close: () => simulator.close(),
  };
}
