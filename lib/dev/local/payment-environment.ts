/**
 * `npm start`'s payment switch (docs/local-stack.md, "Top-ups"): with `ALIPAY_APP_ID`, `ALIPAY_APP_PRIVATE_KEY`
 * and `ALIPAY_PUBLIC_KEY` set, the gateway `ALIPAY_GATEWAY_URL` names (Alipay's by default); with none of them,
 * the simulator. Some but not all is a mistake, said by name.
 */
import { ENV, MissingConfigError } from '../../../functions/adapters/runtime/config.js';
import type { PaymentChoice } from './payments.js';

const NEEDED = [ENV.alipayAppId, ENV.alipayAppPrivateKey, ENV.alipayPublicKey];

export function paymentChoiceFromEnvironment(env: NodeJS.ProcessEnv = process.env): PaymentChoice {
  const set = NEEDED.filter((variable) => env[variable.name]?.trim());
  if (set.length === 0) return { kind: 'simulator' };
  const missing = NEEDED.filter((variable) => !set.includes(variable));
  if (missing.length > 0) {
    throw new MissingConfigError(
      `set ${missing.map((variable) => variable.name).join(' and ')} too, for the real Alipay (or none of ` +
        `${NEEDED.map((variable) => variable.name).join(', ')} for its simulator)`,
    );
  }
  const gatewayUrl = env[ENV.alipayGatewayUrl.name]?.trim() || (ENV.alipayGatewayUrl.default as string);
  return {
    kind: 'real',
    gatewayUrl,
    appId: env[ENV.alipayAppId.name]!.trim(),
    appPrivateKey: env[ENV.alipayAppPrivateKey.name]!.trim(),
    alipayPublicKey: env[ENV.alipayPublicKey.name]!.trim(),
  };
}

/** `env` less Alipay's variables: tests that start `npm start` never reach a developer's real Alipay app. */
export function withoutPaymentVariables(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const names = new Set([...NEEDED, ENV.alipayGatewayUrl].map((variable) => variable.name));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !names.has(name)));
}
