import { useEffect, useState } from 'preact/hooks';

export const AUTH_ROUTES = ['signin', 'signup', 'confirm', 'new-password'] as const;
export const APP_ROUTES = ['overview', 'topup', 'keys', 'tasks', 'transactions', 'webhooks', 'models'] as const;
export type Route = (typeof AUTH_ROUTES)[number] | (typeof APP_ROUTES)[number];

export function parseRoute(hash: string): Route | null {
  const name = hash.replace(/^#\/?/, '').split(/[/?]/)[0] ?? '';
  return ([...AUTH_ROUTES, ...APP_ROUTES] as readonly string[]).includes(name) ? (name as Route) : null;
}

export function navigate(route: Route): void {
  if (location.hash !== `#/${route}`) location.hash = `#/${route}`;
}

export function useRoute(): Route | null {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}
