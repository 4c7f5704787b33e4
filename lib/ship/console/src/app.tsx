import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Services, useServices } from './context.js';
import type { AppServices } from './context.js';
import { AUTH_ROUTES, navigate, useRoute } from './router.js';
import type { Route } from './router.js';
import { Confirm, NewPassword, SignIn, SignUp } from './pages/auth.js';
import { Keys } from './pages/keys.js';
import { Models } from './pages/models.js';
import { Overview } from './pages/overview.js';
import { Tasks } from './pages/tasks.js';
import { TopUp } from './pages/topup.js';
import { Transactions } from './pages/transactions.js';
import { Webhooks } from './pages/webhooks.js';

const NAV: { route: Route; label: string }[] = [
  { route: 'overview', label: 'Overview' },
  { route: 'topup', label: 'Top up' },
  { route: 'keys', label: 'Keys' },
  { route: 'tasks', label: 'Tasks' },
  { route: 'transactions', label: 'Transactions' },
  { route: 'webhooks', label: 'Webhooks' },
  { route: 'models', label: 'Models & prices' },
];

/** The pages shown signed out, by route. */
const AUTH_PAGES: Partial<Record<Route, ComponentType>> = {
  signin: SignIn,
  signup: SignUp,
  confirm: Confirm,
  'new-password': NewPassword,
};

/** The pages of the signed-in console, by route; any other route is the overview. */
const PAGES: Partial<Record<Route, ComponentType>> = {
  topup: TopUp,
  keys: Keys,
  tasks: Tasks,
  transactions: Transactions,
  webhooks: Webhooks,
  models: Models,
};

export function App({ services }: { services: AppServices }) {
  return (
    <Services.Provider value={services}>
      <Shell />
    </Services.Provider>
  );
}

function Shell() {
  const { session } = useServices();
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => session.get() !== null);
  useEffect(() => session.subscribe(() => setSignedIn(session.get() !== null)), [session]);

  const isAuthRoute = route !== null && (AUTH_ROUTES as readonly string[]).includes(route);
  const target: Route = signedIn
    ? route && !isAuthRoute
      ? route
      : 'overview'
    : isAuthRoute && route
      ? route
      : 'signin';
  useEffect(() => {
    if (route !== target) navigate(target);
  }, [route, target]);

  const AuthPage = AUTH_PAGES[target];
  return AuthPage ? <AuthPage /> : <Layout route={target} />;
}

function Layout({ route }: { route: Route }) {
  const { session } = useServices();
  const email = session.get()?.email ?? '';
  const Page = PAGES[route] ?? Overview;

  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href="#/overview">
          <span class="logo" aria-hidden="true">
            ▶
          </span>
          Console
        </a>
        <div class="user">
          <span class="user-email" data-testid="user-email" title={email}>
            {email}
          </span>
          <button class="button small" type="button" onClick={() => session.clear()} data-testid="signout">
            Sign out
          </button>
        </div>
        <nav class="nav" aria-label="Console">
          {NAV.map((item) => (
            <a
              key={item.route}
              href={`#/${item.route}`}
              class={item.route === route ? 'active' : ''}
              aria-current={item.route === route ? 'page' : undefined}
              data-testid={`nav-${item.route}`}
            >
              {item.label}
            </a>
          ))}
        </nav>
      </header>
      <main class="content" key={route}>
        <Page />
      </main>
    </div>
  );
}
