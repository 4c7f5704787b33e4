/** GET /api/v1/console/models: the catalog with prices, as GET /api/v1/models lists it. */
import { listModels } from '../../core/use-cases/list-models.js';
import { modelCatalog } from '../../adapters/wiring/service-dependencies.js';
import { consoleRoute } from './console-route.js';

const models = modelCatalog();

export const handler = consoleRoute(async () => ({ data: await listModels(models) }));
