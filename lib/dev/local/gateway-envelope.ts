/**
 * The answers the local gateway gives itself, where no function runs: in the service's envelope, as the
 * functions answer (docs/api-contract.md), shared by api-gateway-server.ts and console-files.ts.
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export function envelopeText(code: number, message: string): string {
  return JSON.stringify({ code, message, data: null });
}

export function envelope(code: number, message: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode: code, headers: { 'content-type': 'application/json' }, body: envelopeText(code, message) };
}
