/**
 * API Gateway's JWT authorizer, locally: for the gateway's routes flagged `auth: 'jwt'` (the console's, with
 * tokens of the local Cognito, lib/dev/local/cognito.ts), it checks the token and the route's scopes, and
 * hands on the claims as API Gateway puts them in the event (payload format 2.0).
 */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { JwtRsaVerifier } from 'aws-jwt-verify';
import { SimpleJwksCache } from 'aws-jwt-verify/jwk';
import type { JwtPayload } from 'aws-jwt-verify/jwt-model';

/** API Gateway's JWT authorizer settings: tokens of `issuer`, for one of `audience` (app client ids). */
export interface JwtAuthorizerSettings {
  issuer: string;
  audience: readonly string[];
  /** Scopes a verified token must hold one of (the token's `scope` or `scp`): else 403, as API Gateway does. */
  scopes?: readonly string[];
}

/** API Gateway's own answer to a verified token without any of the route's scopes: no function runs. */
export const FORBIDDEN: APIGatewayProxyStructuredResultV2 = {
  statusCode: 403,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Forbidden' }),
};
/** API Gateway's own answer when its JWT authorizer refuses a request: no function runs. */
export const UNAUTHORIZED: APIGatewayProxyStructuredResultV2 = {
  statusCode: 401,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ message: 'Unauthorized' }),
};

/** The claims of the token in an Authorization header, as API Gateway hands them on; undefined: refused. */
export type JwtAuthorizer = (authorization: string | undefined) => Promise<Record<string, string> | undefined>;

/** `requestContext.authorizer` of payload 2.0 (scopes: null when the route requires none). */
export interface JwtContext {
  jwt: { claims: Record<string, string>; scopes: string[] | null };
}

/** A route's check: what goes into the event, or API Gateway's own refusal (401, 403). */
export type RouteAuthorizer = (
  authorization: string | undefined,
) => Promise<{ context: JwtContext } | { refusal: APIGatewayProxyStructuredResultV2 }>;

/** Without settings every request is refused with 401, as no token could be checked. */
export function routeAuthorizer(settings: JwtAuthorizerSettings | undefined): RouteAuthorizer {
  const authorize: JwtAuthorizer = settings ? jwtAuthorizer(settings) : async () => undefined;
  const required = settings?.scopes ?? [];
  return async (authorization) => {
    const claims = await authorize(authorization);
    if (!claims) return { refusal: UNAUTHORIZED };
    if (required.length === 0) return { context: { jwt: { claims, scopes: null } } };
    const scopes = (claims['scope'] ?? claims['scp'] ?? '')
      .replace(/^\[|\]$/g, '')
      .split(' ')
      .filter(Boolean);
    if (!required.some((scope) => scopes.includes(scope))) return { refusal: FORBIDDEN };
    return { context: { jwt: { claims, scopes } } };
  };
}

/**
 * API Gateway's JWT authorizer (identity source `$request.header.Authorization`): the token, with or without
 * `Bearer `, must be an RS256 JWT of the issuer signed by a key of its JWKS, unexpired (`exp`, `nbf`), and for
 * one of the audiences: its `aud` when it has one, else its `client_id` (a Cognito access token has no `aud`).
 * The JWKS is fetched with fetch(): aws-jwt-verify's own fetcher speaks HTTPS only, and the local Cognito HTTP.
 */
export function jwtAuthorizer(settings: JwtAuthorizerSettings): JwtAuthorizer {
  const audience = new Set(settings.audience);
  const jwksCache = new SimpleJwksCache({
    fetcher: {
      fetch: async (uri: string) => {
        const response = await fetch(uri, { signal: AbortSignal.timeout(5_000) });
        if (!response.ok) throw new Error(`JWKS ${uri}: HTTP ${response.status}`);
        return response.arrayBuffer();
      },
    },
  });
  const verifier = JwtRsaVerifier.create(
    {
      issuer: settings.issuer,
      jwksUri: `${settings.issuer}/.well-known/jwks.json`,
      audience: null,
      customJwtCheck: ({ payload }) => {
        const given = payload.aud === undefined ? [payload['client_id']] : [payload.aud].flat();
        if (!given.some((value) => typeof value === 'string' && audience.has(value))) {
          throw new Error('the token is not for this audience');
        }
      },
    },
    { jwksCache },
  );
  return async (authorization) => {
    const token = authorization?.replace(/^Bearer\s+/i, '').trim();
    if (!token) return undefined;
    try {
      return apiGatewayClaims(await verifier.verify(token));
    } catch {
      return undefined;
    }
  };
}

/**
 * The claims as API Gateway passes them in `requestContext.authorizer.jwt.claims`: every value a string
 * (numbers and booleans as their text; an array as `[a b c]`; an object as its JSON).
 */
export function apiGatewayClaims(payload: JwtPayload): Record<string, string> {
  const claims: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    if (value === undefined || value === null) continue;
    claims[name] = Array.isArray(value)
      ? `[${value.map(String).join(' ')}]`
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  }
  return claims;
}
