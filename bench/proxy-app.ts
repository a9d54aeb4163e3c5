/**
 * The chat proxy on the foundation's middleware stages with the real scanning pool, without
 * authentication and rate limiting: the bench's fallback when the composition root does not
 * wire the proxy yet. Run as a child process: UPSTREAM_URL=... node dist/bench/proxy-app.js
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { Api } from '../src/http/api.js';
import { errorsAndMetrics } from '../src/http/middleware/errors.js';
import { jsonBody } from '../src/http/middleware/body.js';
import { requestId } from '../src/http/middleware/request-id.js';
import type { WardenState } from '../src/http/state.js';
import { registerChatRoutes } from '../src/http/routes/chat.js';
import { log } from '../src/log.js';
import { createHttpMetrics, createRegistry } from '../src/metrics/registry.js';
import { normaliseProvider } from '../src/providers/config.js';
import { createPoolScanner } from '../src/proxy/pool-scanner.js';
import { createProxy, type ProxyConfig } from '../src/proxy/wiring.js';
import { DEFAULT_POLICY } from '../src/scanning/policy.js';
import { ScanPool } from '../src/scanning/pool.js';

const upstream = process.env.UPSTREAM_URL;
if (!upstream) throw new Error('UPSTREAM_URL is required');
const registry = createRegistry();
const pool = await ScanPool.create({ workers: Number(process.env.SCAN_WORKERS ?? 1), metrics: registry });
const config: ProxyConfig = {
  providers: [normaliseProvider({ name: 'bench', type: 'openai', base_url: upstream, max_retries: 0 }) as ProxyConfig['providers'][number]],
  pricing: {},
  spend: { thresholds: [] },
  health_checks: { interval_ms: 60_000, timeout_ms: 5_000, degraded_latency_ms: 2_000 },
  security: { mode: 'enforce', block_response: 'error', stream_mode: 'incremental', canary: false },
};
const proxy = createProxy({
  config: () => config,
  registry,
  redis: null,
  prefix: 'bench:',
  instanceId: 'ins_bench',
  scanner: createPoolScanner({ pool, policy: () => DEFAULT_POLICY, instanceId: 'ins_bench' }),
  healthChecks: false,
});
const api = new Api();
registerChatRoutes(api, () => proxy.chat());
const app = new Koa<WardenState>();
app.silent = true;
app.use(requestId());
app.use(errorsAndMetrics(createHttpMetrics(registry), log));
app.use(jsonBody(() => ({ maxBytes: 1024 * 1024, maxDepth: 64 })));
app.use(async (ctx, next) => {
  ctx.state.principal = { method: 'api_key', subject: 'bench', keyId: 'key_bench', role: 'service' };
  await next();
});
app.use(api.router.routes());
const server = createServer(app.callback());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  setTimeout(() => process.exit(0), 2000).unref();
  server.closeAllConnections();
  server.close();
  void proxy.close().then(() => pool.close()).then(() => process.exit(0));
});
