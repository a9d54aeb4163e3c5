import Koa from 'koa';
import type { Logger } from '../log.js';
import type { Services } from '../services.js';
import type { Api } from './api.js';
import { markAuthenticated } from './connections.js';
import { WardenError } from './errors.js';
import { SESSION_COOKIE } from '../auth/credentials.js';
import { authenticate } from './middleware/auth.js';
import { jsonBody } from './middleware/body.js';
import { errorsAndMetrics } from './middleware/errors.js';
import { keyWindow, rateLimit } from './middleware/rate-limit.js';
import { requestId } from './middleware/request-id.js';
import type { WardenContext, WardenState } from './state.js';

/**
 * The HTTP pipeline, one stage per concern, in the order data flows:
 * request id → errors/metrics → authentication → rate limit → JSON body → routes.
 * Every /v1 path but login/logout passes authentication and the rate limit, including paths
 * that do not exist (a caller without a credential learns nothing about routes), and before
 * its body is read or inflated: a caller without a credential costs a header parse, not a
 * decompression and a depth check.
 *
 * Paths are matched case-sensitively (the router is built with `sensitive: true`, http/api.ts):
 * `/V1/KEYS` is no route. The authentication gate reads the prefix in any case, so such a path
 * still needs a credential (401 without one, 404 with one) and never reaches a route or a
 * handler unauthenticated.
 */
export function createApp(services: Services, api: Api, log: Logger): Koa<WardenState> {
  const config = services.config();
  const app = new Koa<WardenState>({ proxy: config.server.trust_proxy });
  app.silent = true;
  const publicV1 = api.publicPaths();
  // Keys and rate-limit windows both in Redis (same connection and prefix): one round trip for both.
  const admitTogether = services.limiter.backend === 'redis' && typeof services.keys.lookupAndAdmit === 'function';
  const authDeps = {
    jwt: services.jwt,
    keys: services.keys,
    metrics: services.httpMetrics,
    policyClaim: () => services.config().policy_routing?.jwt_claim ?? 'warden_policy',
  };
  const auth = authenticate({ ...authDeps, admit: admitTogether ? () => keyWindow(services.config().security.rate_limit) : undefined });
  // /status is not rate limited: its credential is checked without taking a slot in the key's window.
  const statusAuth = authenticate(authDeps);
  const limit = rateLimit({
    store: services.limiter,
    metrics: services.httpMetrics,
    health: services.rateLimitHealth,
    settings: () => ({ limit: services.config().security.rate_limit, failMode: services.config().security.rate_limit_fail_mode }),
  });

  app.use(requestId());
  app.use(errorsAndMetrics(services.httpMetrics, log));
  app.use(async (ctx, next) => {
    ctx.res.setHeader('X-Content-Type-Options', 'nosniff'); // ctx.set without koa's per-call arrays
    await next();
    if (ctx.status === 405 && ctx.body === undefined) {
      throw new WardenError(405, 'invalid_request_error', `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}.`, { code: 'method_not_allowed' });
    }
  });
  app.use(async (ctx, next) => {
    const c = ctx as WardenContext;
    if (isV1(ctx.path) && !publicV1.has(ctx.path)) {
      try {
        await auth(c, () => {
          markAuthenticated(ctx.req.socket);
          return limit(c, next);
        });
      } catch (err) {
        // Refused before its body was read: close the connection after the answer rather than
        // read (and drop) a body nobody will use, or wait for one that drips in.
        if (err instanceof WardenError && (err.status === 401 || err.status === 403 || err.status === 429) && !ctx.req.complete) ctx.set('Connection', 'close');
        throw err;
      }
      return;
    }
    // /status is open; a credential, when one is given, is checked (a bad one is a 401) and shows the internals.
    if (ctx.path === '/status' && (ctx.get('authorization') || ctx.get('x-api-key') || ctx.cookies.get(SESSION_COOKIE))) return statusAuth(c, next);
    return next();
  });
  app.use(jsonBody(() => ({ maxBytes: services.config().limits.max_body_bytes, maxDepth: services.config().limits.max_json_depth })));
  app.use(api.router.routes());
  app.use(api.router.allowedMethods());
  return app;
}

/** `/v1/` in any letter case (the routes themselves match case-sensitively). */
function isV1(path: string): boolean {
  return path.length >= 4 && path.charCodeAt(0) === 47 && (path.charCodeAt(1) | 0x20) === 118 && path.charCodeAt(2) === 49 && path.charCodeAt(3) === 47;
}
