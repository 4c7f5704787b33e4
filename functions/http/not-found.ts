/** The `$default` route: any path or method the API does not have gets the envelope too, not a bare 404. */
import { NotFoundError } from '../core/api-error.js';
import { publicRoute } from './api-handler.js';

export const handler = publicRoute(async (event) => {
  throw new NotFoundError(`no such endpoint: ${event.requestContext.http.method} ${event.rawPath}`);
});
