import { KeyStoreUnavailableError, type ApiKeyStore, type KeyLookup, type RateRequest } from '../../auth/api-keys.js';
import { InvalidTokenError, type JwtService } from '../../auth/jwt.js';
import { SESSION_COOKIE, bearerToken, refererOrigin, sameOrigin } from '../../auth/credentials.js';
import type { Principal } from '../../auth/principal.js';
import type { Role } from '../../config/types.js';
import type { HttpMetrics } from '../../metrics/registry.js';
import type { RateLimitDecision } from '../../ratelimit/types.js';
import { WardenError, forbidden, unauthorized } from '../errors.js';
import type { Middleware, WardenContext } from '../state.js';

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const TOUCH_EVERY_MS = 60_000;

/**
 * Stage 4: exactly one credential decides. Authorization: Bearer <JWT> first, then
 * X-API-Key: svc_..., then the svc_access_token cookie. A credential that is present but
 * bad is a 401; it never falls through to another one.
 */
export function authenticate(deps: AuthDeps): Middleware {
  const lastTouched = new Map<string, number>();
  return async (ctx, next) => {
    ctx.state.principal = await identify(ctx, deps, lastTouched);
    await next();
  };
}

interface AuthDeps {
  jwt: JwtService;
  keys: ApiKeyStore;
  metrics: HttpMetrics;
  /**
   * Set when the key store can admit into the rate limiter's window in the same round trip
   * (both on Redis): the window for a key. The admission is left in ctx.state.admitted for the
   * rate-limit stage, which then makes none of its own.
   */
  admit?: () => RateRequest;
  /** The JWT claim that names the caller's policy (policy_routing.jwt_claim). */
  policyClaim?: () => string;
}

async function identify(ctx: WardenContext, { jwt, keys, metrics, admit, policyClaim }: AuthDeps, lastTouched: Map<string, number>): Promise<Principal> {
  const fail = (reason: string, message?: string) => {
    metrics.authFailures.inc({ reason });
    return unauthorized(message);
  };
  const authorization = ctx.get('authorization');
  const apiKey = ctx.get('x-api-key');

  if (authorization) {
    const token = bearerToken(authorization);
    if (token === null) throw fail('malformed_authorization', 'The Authorization header must be "Bearer <JWT>" or "Bearer svc_...".');
    // OpenAI SDKs send their apiKey as a bearer token; a Warden API key there is an API key
    // (a JWT never starts with svc_), so `new OpenAI({ apiKey: 'svc_...' })` just works.
    if (token.startsWith('svc_')) return fromApiKey(ctx, token, { keys, fail, admit }, lastTouched);
    return fromToken(token, 'jwt', jwt, fail, policyClaim);
  }
  if (apiKey) {
    if (!apiKey.startsWith('svc_')) throw fail('key_prefix', 'API keys start with "svc_".');
    return fromApiKey(ctx, apiKey, { keys, fail, admit }, lastTouched);
  }
  // Read only when no header credential came (koa builds a cookie jar on first use).
  const cookie = ctx.cookies.get(SESSION_COOKIE);
  if (cookie) {
    const principal = await fromToken(cookie, 'cookie', jwt, fail);
    if (UNSAFE.has(ctx.method)) checkSameOrigin(ctx);
    return principal;
  }
  throw fail('missing');
}

async function fromApiKey(
  ctx: WardenContext,
  apiKey: string,
  { keys, fail, admit }: { keys: ApiKeyStore; fail: (r: string, m?: string) => Error; admit?: () => RateRequest },
  lastTouched: Map<string, number>,
): Promise<Principal> {
  const lookup = (): Promise<{ lookup: KeyLookup; decision: RateLimitDecision | null }> =>
    admit && keys.lookupAndAdmit ? keys.lookupAndAdmit(apiKey, admit()) : keys.lookup(apiKey).then((found) => ({ lookup: found, decision: null }));
  const { lookup: found, decision } = await lookup().catch((err: unknown) => {
    if (err instanceof KeyStoreUnavailableError) {
      throw new WardenError(503, 'api_error', 'API keys cannot be checked right now (the key store is unreachable); retry shortly or use a JWT.', {
        code: 'credential_store_unavailable',
        headers: { 'Retry-After': '1' },
      });
    }
    throw err;
  });
  if (!found.ok) {
    throw fail(`key_${found.reason}`, found.reason === 'revoked' ? 'This API key has been revoked.' : found.reason === 'expired' ? 'This API key has expired.' : 'Unknown API key.');
  }
  if (decision !== null) ctx.state.admitted = decision;
  const now = Date.now();
  if ((lastTouched.get(found.key.id) ?? 0) < now - TOUCH_EVERY_MS) {
    lastTouched.set(found.key.id, now);
    void keys.touch(found.key.id, new Date(now)).catch(() => undefined);
  }
  return { method: 'api_key', subject: found.key.id, keyId: found.key.id, role: found.key.role, rateLimit: found.key.rate_limit ?? undefined, ...(found.key.policy ? { policy: found.key.policy } : {}) };
}

async function fromToken(token: string, method: 'jwt' | 'cookie', jwt: JwtService, fail: (r: string, m?: string) => Error, policyClaim?: () => string): Promise<Principal> {
  try {
    const verified = await jwt.verify(token);
    const policy = policyClaim ? verified.claims?.[policyClaim()] : undefined;
    return { method, subject: verified.subject, role: verified.role, expiresAt: verified.expiresAt, ...(typeof policy === 'string' && policy ? { policy } : {}) };
  } catch (err) {
    if (err instanceof InvalidTokenError) throw fail(`jwt_${err.reason.split(' ')[0]}`, err.reason === 'expired' ? 'The token has expired; log in again.' : 'The token is not valid.');
    throw err;
  }
}

/** Cookie-authenticated writes must come from our own origin: no CSRF. */
function checkSameOrigin(ctx: WardenContext): void {
  const origin = ctx.get('origin') || refererOrigin(ctx.get('referer'));
  const expected = `${ctx.protocol}://${ctx.host}`;
  if (!sameOrigin(origin, { hosts: [ctx.host], protocol: ctx.protocol })) {
    throw forbidden(`Cookie-authenticated ${ctx.method} requests must come from ${expected} (Origin was ${origin || 'missing'}).`);
  }
}

/** Route guard: the caller's role must be one of `roles`. */
export function requireRole(...roles: Role[]): Middleware {
  return async (ctx, next) => {
    const role = ctx.state.principal?.role;
    if (!role || !roles.includes(role)) {
      throw forbidden(`This operation needs the ${roles.join(' or ')} role; the credential has the ${role ?? 'no'} role.`);
    }
    await next();
  };
}
