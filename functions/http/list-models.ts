/** GET /api/v1/models */
import { listModels } from '../core/use-cases/list-models.js';
import { modelCatalog } from '../adapters/wiring/service-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const models = modelCatalog();

export const handler = authenticatedRoute(async (_event, caller) => {
  const catalog = listModels(models);
  catalog.catch(() => undefined);
  await caller;
  return { data: await catalog };
});
