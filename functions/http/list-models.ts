/** GET /api/v1/models */
import { listModels } from '../core/use-cases/list-models.js';
import { modelCatalog } from '../adapters/service-dependencies.js';
import { authenticatedRoute } from './api-handler.js';

const models = modelCatalog();

export const handler = authenticatedRoute(async () => ({ data: await listModels(models) }));
