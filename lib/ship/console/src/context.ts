import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ConsoleApi } from './api.js';
import type { CognitoClient } from './cognito.js';
import type { SessionStore } from './session.js';

export interface ConsoleConfig {
  cognito: { endpoint: string; region: string; userPoolId: string; clientId: string };
  apiBase: string;
  /** `simulator`: top-ups go to the local Alipay simulator, which the Top-up page can pay with a button. */
  payments?: 'alipay' | 'simulator';
}

export interface AppServices {
  config: ConsoleConfig;
  cognito: CognitoClient;
  session: SessionStore;
  api: ConsoleApi;
  /** The password typed at sign-up, held in memory only, to sign in right after the code is confirmed. */
  pendingPassword: { value: string | null };
}

export const Services = createContext<AppServices | null>(null);

export function useServices(): AppServices {
  const services = useContext(Services);
  if (!services) throw new Error('Services missing');
  return services;
}
