/**
 * GET /api/v1/health: no API key, no storage read. It answers 200 when API Gateway reaches a function that
 * loads and runs (what a load balancer or an uptime check needs); DynamoDB's health is CloudWatch's to watch.
 */
import { publicRoute } from './api-handler.js';

export const handler = publicRoute(async () => ({ data: { status: 'ok' } }));
