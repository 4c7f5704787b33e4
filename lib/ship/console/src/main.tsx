/** Entry: reads config.json (next to index.html), then renders the console. */
import { render } from 'preact';
import { ConsoleApi } from './api.js';
import { App } from './app.js';
import { CognitoClient } from './cognito.js';
import type { ConsoleConfig } from './context.js';
import { SessionStore } from './session.js';
import './style.css';

async function loadConfig(): Promise<ConsoleConfig> {
  const response = await fetch('./config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json answered HTTP ${response.status}`);
  const config = (await response.json()) as Partial<ConsoleConfig>;
  if (!config.cognito?.endpoint || !config.cognito.clientId) throw new Error('config.json has no Cognito settings');
  return {
    cognito: config.cognito,
    apiBase: (config.apiBase ?? '').replace(/\/$/, ''),
    payments: config.payments === 'simulator' ? 'simulator' : 'alipay',
  };
}

async function start(root: HTMLElement) {
  let config: ConsoleConfig;
  try {
    config = await loadConfig();
  } catch (error) {
    render(
      <main class="auth">
        <p class="note note-error" role="alert" data-testid="config-error">
          The console cannot start: its configuration could not be read ({(error as Error).message}). Reload the page;
          if it persists, contact support.
        </p>
      </main>,
      root,
    );
    return;
  }
  const cognito = new CognitoClient(config.cognito);
  const session = new SessionStore(window.sessionStorage);
  const api = new ConsoleApi(config.apiBase, session, cognito);
  render(<App services={{ config, cognito, session, api, pendingPassword: { value: null } }} />, root);
}

const root = document.getElementById('app');
if (root) void start(root);
