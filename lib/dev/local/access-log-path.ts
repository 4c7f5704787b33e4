/**
 * The path as the local access log prints it. In AWS the access log holds the route key (`$context.routeKey`,
 * lib/ship/cdk/api.ts), never the path, so an upstream callback's secret is never logged; locally the path is
 * printed, with each `{secret}` segment of the route it matches replaced.
 */
import { matchPath } from '../../ship/routes.js';

const SECRET_SEGMENT = '{secret}';
export const REDACTED = '[redacted]';

export function loggedPath(pathname: string, routes: readonly { path: string }[]): string {
  const route = routes.find(({ path }) => path.includes(SECRET_SEGMENT) && matchPath(path, pathname) !== undefined);
  if (!route) return pathname;
  // A parameter matches one segment, so the template and the path have as many, in the same places.
  const template = route.path.split('/');
  return pathname
    .split('/')
    .map((segment, index) => (template[index] === SECRET_SEGMENT ? REDACTED : segment))
    .join('/');
}
