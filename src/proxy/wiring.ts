import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { WardenConfig } from '../config/types.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Services } from '../services.js';
import { log } from '../log.js';
import { normaliseProvider, type ProviderInput } from '../providers/config.js';
import { ProviderHealth, type ProviderHealthView } from '../providers/health.js';
import { MemoryHealthStore, RedisHealthStore, type HealthStore } from '../providers/health-store.js';
import { ProviderRouter } from '../providers/router.js';
import { PriceTable } from '../spend/pricing.js';
import { MemorySpendStore, RedisSpendStore, type SpendStore } from '../spend/store.js';
import { SpendTracker } from '../spend/tracker.js';
import { ChatService, DEFAULT_CHAT_SETTINGS, type ChatSettings } from './chat.js';
import { createProxyMetrics, type ProxyMetrics } from '../metrics/proxy.js';
import { outcomeSettings } from './outcome/settings.js';
import type { OutcomeConfig } from '../config/types.js';
import type { ChatScanner, EventSink } from '../ports.js';

/** The sections of warden.yaml the proxy reads (a subset of WardenConfig, so tests can pass less). */
export type ProxyConfig = Pick<WardenConfig, 'providers' | 'pricing' | 'spend' | 'health_checks'> & {
  security: Pick<WardenConfig['security'], 'mode' | 'block_response' | 'stream_mode' | 'canary'> & {
    stream_chunk_chars?: number;
    stream_overlap_chars?: number;
    input?: { scan_system_turns?: boolean };
    output?: { link_allowlist?: string[] };
    outcome?: OutcomeConfig;
  };
};

export interface ProxyWiring {
  config: () => ProxyConfig;
  registry: Registry;
  redis: Redis | null;
  /** redis.key_prefix */
  prefix: string;
  instanceId: string;
  scanner: ChatScanner;
  events?: EventSink;
  /** Stores to use (the composition root's); else Redis when `redis` is given, else memory. */
  stores?: { health: HealthStore; spend: SpendStore };
  /** Start background health checks (default true). */
  healthChecks?: boolean;
}

export interface Proxy {
  /** The current chat service (replaced when a reload changes providers). */
  chat(): ChatService;
  router(): ProviderRouter;
  health(): ProviderHealth;
  readonly spend: SpendTracker;
  readonly metrics: ProxyMetrics;
  /** Rows for GET /health/providers. */
  providers(): Promise<ProviderHealthView[]>;
  /** Applies a reloaded configuration: settings at once, providers by swapping router and health. */
  reload(): Promise<void>;
  close(): Promise<void>;
}

export function chatSettings(c: ProxyConfig): ChatSettings {
  return {
    mode: c.security.mode ?? DEFAULT_CHAT_SETTINGS.mode,
    block_response: c.security.block_response ?? DEFAULT_CHAT_SETTINGS.block_response,
    stream_mode: c.security.stream_mode ?? DEFAULT_CHAT_SETTINGS.stream_mode,
    canary: c.security.canary ?? DEFAULT_CHAT_SETTINGS.canary,
    stream_chunk_chars: c.security.stream_chunk_chars ?? DEFAULT_CHAT_SETTINGS.stream_chunk_chars,
    stream_overlap_chars: c.security.stream_overlap_chars ?? DEFAULT_CHAT_SETTINGS.stream_overlap_chars,
    scan_system_turns: c.security.input?.scan_system_turns ?? DEFAULT_CHAT_SETTINGS.scan_system_turns,
  };
}

/**
 * Builds the proxy from configuration: providers and their router, health checks (shared via
 * Redis when configured), spend accounting, and the chat service the route calls.
 */
export function createProxy(w: ProxyWiring): Proxy {
  const metrics = createProxyMetrics(w.registry);
  const healthStore: HealthStore = w.stores?.health ?? (w.redis ? new RedisHealthStore(w.redis, w.prefix) : new MemoryHealthStore());
  const spendStore: SpendStore = w.stores?.spend ?? (w.redis ? new RedisSpendStore(w.redis, w.prefix) : new MemorySpendStore());
  const cfg = w.config();
  const spend = new SpendTracker(spendStore, new PriceTable(cfg.pricing ?? {}), cfg.spend?.thresholds ?? [], w.events, metrics);

  const build = (c: ProxyConfig) => {
    const providers = (c.providers ?? []).map((p) => normaliseProvider(p as ProviderInput));
    // The health checker probes through the router's own adapters (same pools, same keys).
    const router = new ProviderRouter(providers, { metrics });
    const hc = c.health_checks ?? { interval_ms: 30_000, timeout_ms: 5_000, degraded_latency_ms: 2_000 };
    const health = new ProviderHealth(router.adapters, healthStore, { ...hc, instanceId: w.instanceId }, w.events, metrics);
    router.attachHealth(health);
    const chat = new ChatService({ router, scanner: w.scanner, settings: () => chatSettings(w.config()), spend, metrics, events: w.events, outcome: () => outcomeSettings(w.config().security.outcome, w.config().security.output?.link_allowlist ?? []) });
    if (w.healthChecks !== false && providers.length > 0) health.start();
    return { router, health, chat, key: JSON.stringify(c.providers ?? []) + JSON.stringify(hc) };
  };

  let current = build(cfg);

  return {
    chat: () => current.chat,
    router: () => current.router,
    health: () => current.health,
    spend,
    metrics,
    providers: () => current.health.list(),
    async reload() {
      const c = w.config();
      spend.setThresholds(c.spend?.thresholds ?? []);
      spend.setPrices(new PriceTable(c.pricing ?? {}));
      const key = JSON.stringify(c.providers ?? []) + JSON.stringify(c.health_checks);
      if (key === current.key) return;
      const old = current;
      current = build(c);
      log.info({ providers: (c.providers ?? []).map((p) => p.name) }, 'providers reloaded');
      await old.health.stop();
      // In-flight requests keep the old pools; close them once those are surely done.
      setTimeout(() => void old.router.close(), 120_000).unref();
    },
    async close() {
      await current.health.stop();
      await current.router.close();
    },
  };
}

/**
 * Wires the proxy into the running service: the `providers` and `spend` sections of /status,
 * reload and shutdown. The composition root registers POST /v1/chat/completions over
 * `proxy.chat()` and /health/providers over `proxy.providers`. `scanner`: chatScannerOf(scanService) (src/scan-service/chat-scanner.ts).
 */
export function wireProxy(opts: {
  services: Pick<Services, 'config' | 'registry' | 'redis' | 'storage' | 'instanceId' | 'statusSections' | 'events'>;
  lifecycle: Pick<Lifecycle, 'onReload' | 'onShutdown'>;
  scanner: ChatScanner;
  healthChecks?: boolean;
}): Proxy {
  const { services, lifecycle } = opts;
  const proxy = createProxy({
    config: () => services.config(),
    registry: services.registry,
    redis: services.redis,
    prefix: services.config().redis.key_prefix,
    instanceId: services.instanceId,
    scanner: opts.scanner,
    events: services.events,
    stores: { health: services.storage.health, spend: services.storage.spend },
    healthChecks: opts.healthChecks,
  });
  services.statusSections.set('providers', async () => {
    const rows = await proxy.providers();
    return { configured: rows.length, healthy: rows.filter((r) => r.status === 'healthy').length, providers: rows.map((r) => ({ name: r.name, status: r.status })) };
  });
  services.statusSections.set('spend', async () => {
    const [day, month] = await Promise.all([proxy.spend.totals('day'), proxy.spend.totals('month')]);
    return { today_usd: day.global?.cost_usd ?? 0, month_usd: month.global?.cost_usd ?? 0, requests_today: day.global?.requests ?? 0 };
  });
  lifecycle.onReload(() => proxy.reload());
  lifecycle.onShutdown(() => proxy.close());
  return proxy;
}
