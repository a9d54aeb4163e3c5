import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootstrapCredentials } from './auth/bootstrap.js';
import { createJwtService } from './auth/jwt.js';
import { ConfigError, loadConfig } from './config/load.js';
import { watchConfigFile } from './config/watch.js';
import type { WardenConfig } from './config/types.js';
import { Api } from './http/api.js';
import { createApp } from './http/app.js';
import { guardPendingConnections } from './http/connections.js';
import { registerAnalyticsRoutes } from './http/routes/analytics.js';
import { registerAuthRoutes } from './http/routes/auth.js';
import { registerChatRoutes } from './http/routes/chat.js';
import { registerDashboardRoutes } from './http/routes/dashboard.js';
import { registerDocsRoutes } from './http/routes/docs.js';
import { registerJobRoutes } from './http/routes/jobs.js';
import { registerKeyRoutes } from './http/routes/keys.js';
import { errorSchema } from './http/routes/schemas.js';
import { registerModelRoutes } from './http/routes/models.js';
import { registerStatusRoute } from './http/routes/status.js';
import { registerReportRoutes } from './http/routes/reports.js';
import { registerScanRoutes } from './http/routes/scans.js';
import { registerSystemRoutes } from './http/routes/system.js';
import { registerWsHealthRoute } from './http/routes/ws-health.js';
import { log as rootLog, type Logger } from './log.js';
import { createHttpMetrics, createRegistry } from './metrics/registry.js';
import { MemoryRateLimitStore } from './ratelimit/memory.js';
import { RedisRateLimitStore } from './ratelimit/redis.js';
import type { RateLimitHealth, RateLimitStore } from './ratelimit/types.js';
import { startEventBus, wireEvents } from './events/wiring.js';
import { listedModels } from './providers/models.js';
import { wireProxy } from './proxy/wiring.js';
import { chatScannerOf } from './scan-service/chat-scanner.js';
import { wireScanning } from './scan-service/wiring.js';
import { wireAnalytics } from './analytics/wiring.js';
import { wireJobs } from './jobs/wiring.js';
import { createLifecycle } from './lifecycle.js';
import type { Services } from './services.js';
import { registerPolicyRoutes } from './http/routes/policies.js';
import { registerSettingsRoutes } from './http/routes/settings.js';
import { orphanedKeysProblem } from './policies/validate.js';
import { effectiveConfig } from './settings/effective.js';
import { applySettings } from './settings/store.js';
import { openStorage, type Storage } from './storage/index.js';
import { connectRedis } from './storage/redis-connection.js';
import { handleSignals } from './signals.js';
import { afterResponseDrained } from './util/after.js';
import { newId } from './util/ids.js';
import { VERSION } from './version.js';

export interface StartOptions {
  config: WardenConfig;
  /** The file the config came from (reloaded on SIGHUP), or null for embedded defaults. */
  configPath: string | null;
  log?: Logger;
  /** Install SIGHUP/SIGTERM/SIGINT handlers (the CLI does; tests that embed a server don't). */
  handleSignals?: boolean;
  /** Reload when the config file changes (default true when there is a file). */
  watchConfig?: boolean;
  /** Where the one-time bootstrap key notice goes (stdout by default). */
  announce?: (line: string) => void;
}

export type { Lifecycle } from './lifecycle.js';

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  readonly services: Services;
  readonly http: Server;
  /** Re-reads the config file; a file that fails validation keeps the running config. */
  reload(): Promise<{ ok: true } | { ok: false; error: string }>;
  close(): Promise<void>;
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const log = opts.log ?? rootLog;
  let config = opts.config;
  const instanceId = config.server.instance_id ?? newId('ins');
  const registry = createRegistry({ instance_id: instanceId });
  const httpMetrics = createHttpMetrics(registry);
  const redis = config.redis.url ? await connectRedis(config.redis.url, log) : null;
  // Where keys, settings, records, analytics, spend and reports live (src/storage/). A file
  // that cannot be used (corrupt, newer, held by another server) fails the start here.
  let storage: Storage;
  try {
    storage = await openStorage({
      config,
      redis,
      registry,
      log,
      onWriteHealth: (healthy, detail) => events.emit('system_status', { status: healthy ? 'ready' : 'degraded', version: VERSION, detail }),
    });
  } catch (err) {
    redis?.disconnect();
    throw err;
  }
  // Events next, so every subsystem wired below can raise them (src/events/wiring.ts).
  const events = await startEventBus({ config, instanceId, registry, log, version: VERSION });
  const keys = storage.keys;
  const limiter: RateLimitStore = redis ? new RedisRateLimitStore(redis, config.redis.key_prefix) : new MemoryRateLimitStore();
  const rateLimitHealth: RateLimitHealth = { backend: limiter.backend, healthy: true, fail_mode: config.security.rate_limit_fail_mode, last_error: null };

  const { lifecycle, hooks } = createLifecycle();

  // The admin key, dashboard login and JWT secret of a zero-config start, made once per store.
  const boot = await bootstrapCredentials({ config, keys, secrets: storage.secrets, announce: opts.announce ?? ((line) => process.stdout.write(line + '\n')) });
  // Runtime settings (the dashboard's) override warden.yaml; with Redis, cluster-wide.
  const settingsStore = storage.settings;
  const effective = await effectiveConfig({ file: config, settings: settingsStore, login: boot.login });

  const services: Services = {
    version: VERSION,
    instanceId,
    startedAt: new Date(),
    config: () => effective.current(),
    registry,
    httpMetrics,
    redis,
    storage,
    jwt: await createJwtService({ ...config.auth.jwt, secret: boot.jwtSecret }),
    keys,
    limiter,
    rateLimitHealth,
    loginLimiter: limiter,
    statusSections: new Map(),
    events,
  };

  services.statusSections.set('storage', () => storage.status());
  // The configuration file and its last reload (SIGHUP, a file change): a refused one stays visible here, not only in the log.
  const reloads = { last_reload_at: null as string | null, last_reload_error: null as string | null };
  lifecycle.onReload(() => void Object.assign(reloads, { last_reload_at: new Date().toISOString(), last_reload_error: null }));
  lifecycle.onReloadFailed((error) => void Object.assign(reloads, { last_reload_at: new Date().toISOString(), last_reload_error: error }));
  services.statusSections.set('config', () => ({ status: reloads.last_reload_error ? 'degraded' : 'ok', file: opts.configPath ?? null, ...reloads }));

  // The domain first: each subsystem wires its stores, /status section and lifecycle hooks.
  const scans = await wireScanning({ services, lifecycle });
  const proxy = wireProxy({ services, lifecycle, scanner: chatScannerOf(scans.service) });
  const { analytics, reports } = wireAnalytics({ services, lifecycle, scans: scans.service, spend: proxy.spend });
  const jobs = wireJobs({ services, lifecycle, scans: scans.service, log });
  const stream = wireEvents({ services, lifecycle, bus: events, log });

  // Then HTTP over it: this is the only place the routes meet the domain (docs/architecture.md).
  const api = new Api();
  api.component('Error', errorSchema);
  registerAuthRoutes(api, services);
  registerKeyRoutes(api, services);
  registerSettingsRoutes(api, services, settingsStore, () => effective.overrides());
  registerPolicyRoutes(api, services, () => effective.overrides());
  registerScanRoutes(api, services, scans);
  registerJobRoutes(api, services, jobs);
  registerChatRoutes(api, () => proxy.chat());
  registerSystemRoutes(api, services, { providers: () => proxy.providers() });
  registerStatusRoute(api, services);
  // Globs in providers[].models are expanded against what each provider listed at its last health check.
  // A provider with a glob that was never checked yet (just started or reloaded) is checked first.
  const upstreamModels = async () => {
    let rows = await proxy.providers();
    if (rows.some((p) => p.last_check === null && p.models.some((m) => /[*?]/.test(m)))) {
      await proxy.health().tick();
      rows = await proxy.providers();
    }
    return new Map(rows.map((p) => [p.name, p.upstream_models] as const));
  };
  registerModelRoutes(api, async () => listedModels(proxy.router().adapters.map((a) => a.config), await upstreamModels()), services.startedAt);
  registerAnalyticsRoutes(api, analytics);
  registerReportRoutes(api, reports);
  registerDashboardRoutes(api);
  registerDocsRoutes(api, VERSION);
  registerWsHealthRoute(api, () => stream.health());

  const app = createApp(services, api, log);
  // Slow senders are cut (408, connection closed): headers within server.headers_timeout_ms, the
  // whole request within server.request_timeout_ms, checked every second; and one address holds
  // at most server.max_pending_connections_per_ip connections that have not authenticated.
  const http = createServer(
    { headersTimeout: config.server.headers_timeout_ms, requestTimeout: config.server.request_timeout_ms, connectionsCheckingInterval: 1000 },
    app.callback(),
  );
  http.keepAliveTimeout = 65_000;
  guardPendingConnections(http, () => config.server.max_pending_connections_per_ip);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(config.server.port, config.server.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  const url = `http://${config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host}:${port}`;
  for (const fn of hooks.ready) await fn(http);

  const reload = async (): Promise<{ ok: true } | { ok: false; error: string }> => {
    if (!opts.configPath) return { ok: false, error: 'running on embedded defaults: there is no configuration file to reload' };
    try {
      const next = loadConfig({ path: opts.configPath }).config;
      // A file that drops a policy an API key still names is refused, as PUT /v1/settings refuses it.
      const named = await keys.list().catch((err: unknown) => (log.warn({ err: (err as Error).message }, 'reload: the API keys could not be listed; their policies are not checked'), []));
      const orphaned = orphanedKeysProblem(named, applySettings(next, effective.overrides()).policies, 'the reloaded file');
      if (orphaned !== null) throw new ConfigError(opts.configPath, [orphaned]);
      config = next;
      effective.setFile(next);
      rateLimitHealth.fail_mode = next.security.rate_limit_fail_mode;
      for (const fn of hooks.reload) await fn(effective.current());
      log.info({ path: opts.configPath }, 'configuration reloaded');
      return { ok: true };
    } catch (err) {
      const message = err instanceof ConfigError ? err.message : (err as Error).message;
      log.error({ path: opts.configPath, error: message }, 'configuration reload failed; keeping the running configuration');
      for (const fn of hooks.reloadFailed) await Promise.resolve(fn(message)).catch(() => undefined);
      return { ok: false, error: message };
    }
  };

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      log.info('shutting down: no new connections, finishing in-flight requests');
      watcher?.close();
      const stopped = new Promise<void>((resolve) => http.close(() => resolve()));
      // Keep-alive connections close as soon as their request is done; none outlives the timeout.
      http.closeIdleConnections();
      const sweeper = setInterval(() => http.closeIdleConnections(), 50);
      const timer = setTimeout(() => http.closeAllConnections(), config.server.shutdown_timeout_ms);
      // Last registered, first run (like defer): the event stream, wired last, drains the HTTP
      // server and flushes events before the scan pool and the proxy it depends on close.
      for (const fn of [...hooks.shutdown].reverse()) await Promise.resolve(fn()).catch((err) => log.warn({ err }, 'shutdown hook failed'));
      await stopped;
      clearInterval(sweeper);
      clearTimeout(timer);
      // The last answers' records, counters and spend (written after each answer) reach the stores.
      await afterResponseDrained();
      await limiter.close();
      await settingsStore.close();
      await storage.close();
      if (redis) await redis.quit().catch(() => redis.disconnect());
    })());

  // The config file reloads itself when it changes.
  const watcher = opts.configPath && opts.watchConfig !== false ? watchConfigFile(opts.configPath, () => void reload(), log) : undefined;
  if (opts.handleSignals) handleSignals({ reload, close });

  log.info({ url, instance_id: instanceId, version: VERSION, redis: Boolean(redis) }, 'warden ready');
  return { url, port, services, http, reload, close };
}
