import { log } from '../log.js';
import type { EventSink } from '../ports.js';
import type { ProxyMetrics } from '../metrics/proxy.js';
import {
  DEFAULT_THRESHOLDS,
  applyObservation,
  initialRecord,
  type HealthRecord,
  type HealthThresholds,
  type Observation,
  type RecordedStatus,
} from './health-state.js';
import { UpstreamError } from './errors.js';
import type { HealthStore } from './health-store.js';
import type { ProviderAdapter } from './types.js';

export interface HealthOptions {
  interval_ms: number;
  timeout_ms: number;
  degraded_latency_ms: number;
  thresholds?: HealthThresholds;
  instanceId: string;
}

/** One row of GET /health/providers. */
export interface ProviderHealthView {
  name: string;
  type: string;
  status: RecordedStatus;
  latency_ms: number | null;
  last_check: string | null;
  last_error: string | null;
  /** Model names or globs Warden routes to this provider. */
  models: string[];
  /** Models the provider itself listed at the last check (first 100). */
  upstream_models: string[];
  priority: number;
}

const STATUS_VALUE: Record<RecordedStatus, number> = { unknown: -1, healthy: 0, degraded: 1, unhealthy: 2 };
const MAX_CAS_ATTEMPTS = 8;

/**
 * Provider health from two sources: a background check per provider against its model
 * listing (never a paid completion), and passive signals from real traffic (errors). With a
 * shared store only the lease holder probes each interval, and a transition is written with
 * compare-and-set, so each change raises exactly one provider_health_change cluster-wide.
 */
export class ProviderHealth {
  private readonly cache = new Map<string, HealthRecord>();
  private readonly adapters = new Map<string, ProviderAdapter>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private readonly probeAbort = new AbortController();
  private readonly th: HealthThresholds;

  constructor(
    adapters: ProviderAdapter[],
    private readonly store: HealthStore,
    private readonly opts: HealthOptions,
    private readonly events?: EventSink,
    private readonly metrics?: ProxyMetrics,
  ) {
    for (const a of adapters) {
      this.adapters.set(a.config.name, a);
      this.cache.set(a.config.name, initialRecord(a.config.name));
      metrics?.providerStatus.set({ provider: a.config.name }, STATUS_VALUE.unknown);
    }
    this.th = opts.thresholds ?? DEFAULT_THRESHOLDS;
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), this.opts.interval_ms);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.probeAbort.abort();
    await this.ticking?.catch(() => undefined);
  }

  /** Last known status, synchronously (the router asks on every request). */
  status(name: string): RecordedStatus {
    return this.cache.get(name)?.status ?? 'unknown';
  }

  /** One probe round: each provider whose lease we win is checked; then the shared view is read. */
  tick(): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = (async () => {
      try {
        await Promise.all([...this.adapters.values()].map((a) => this.probeOne(a)));
        await this.refresh();
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'provider health round failed');
      } finally {
        this.ticking = null;
      }
    })();
    return this.ticking;
  }

  private async probeOne(adapter: ProviderAdapter): Promise<void> {
    const name = adapter.config.name;
    // Slightly shorter than the interval, so the next round's lease is free again.
    if (!(await this.store.acquireProbeLease(name, this.opts.instanceId, Math.max(50, this.opts.interval_ms * 0.9)))) return;
    const signal = AbortSignal.any([this.probeAbort.signal, AbortSignal.timeout(this.opts.timeout_ms)]);
    const at = new Date().toISOString();
    let obs: Observation;
    try {
      const r = await adapter.probe(signal);
      obs = {
        kind: r.latency_ms > this.opts.degraded_latency_ms ? 'slow' : 'ok',
        source: 'probe',
        at,
        latency_ms: r.latency_ms,
        models: r.models.slice(0, 100),
      };
    } catch (err) {
      if (this.probeAbort.signal.aborted) return;
      // Without the provider's own text: health records and events are not scanned (issue 23).
      obs = { kind: 'fail', source: 'probe', at, error: err instanceof UpstreamError ? err.summary : (err as Error).message };
    }
    await this.observe(name, obs);
  }

  /**
   * A signal from real traffic. Successes are only written while the provider is not healthy
   * (they count towards recovery); a success on a healthy provider changes nothing, so the
   * hot path costs no Redis round trip.
   */
  recordTraffic(name: string, ok: boolean, latencyMs: number, error?: string): void {
    const cur = this.cache.get(name);
    if (!cur) return;
    if (ok && cur.status === 'healthy' && cur.fail_streak === 0) return;
    const obs: Observation = ok
      ? { kind: 'ok', source: 'traffic', at: new Date().toISOString(), latency_ms: Math.round(latencyMs) }
      : { kind: 'fail', source: 'traffic', at: new Date().toISOString(), error: error ?? 'request failed' };
    this.observe(name, obs).catch((err) => log.warn({ provider: name, err: (err as Error).message }, 'could not record provider health'));
  }

  /** Applies one observation with compare-and-set; emits the event only if this write won a change. */
  async observe(name: string, obs: Observation): Promise<void> {
    for (let attempt = 0; attempt < MAX_CAS_ATTEMPTS; attempt++) {
      const cur = (await this.store.get(name)) ?? initialRecord(name);
      const t = applyObservation(cur, obs, this.th);
      if (await this.store.compareAndSet(t.next, cur.version)) {
        this.remember(t.next);
        if (t.changed) this.announce(cur, t.next, t.reason);
        return;
      }
    }
    log.warn({ provider: name }, 'provider health write lost the race repeatedly; observation dropped');
  }

  private announce(prev: HealthRecord, next: HealthRecord, reason: string): void {
    // Warden starting up and finding a provider fine is not news; anything else is.
    if (prev.status === 'unknown' && next.status === 'healthy') return;
    log.info({ provider: next.provider, from: prev.status, to: next.status, reason }, 'provider health changed');
    this.events?.emit(
      'provider_health_change',
      {
        provider: next.provider,
        previous_status: prev.status,
        status: next.status,
        reason,
        latency_ms: next.latency_ms,
      },
      next.provider,
    );
  }

  private remember(rec: HealthRecord): void {
    this.cache.set(rec.provider, rec);
    this.metrics?.providerStatus.set({ provider: rec.provider }, STATUS_VALUE[rec.status]);
  }

  /** Pulls the shared records (other instances' probes and traffic) into the local cache. */
  async refresh(): Promise<void> {
    await Promise.all(
      [...this.adapters.keys()].map(async (name) => {
        const rec = await this.store.get(name);
        if (rec) this.remember(rec);
      }),
    );
  }

  async list(): Promise<ProviderHealthView[]> {
    await this.refresh().catch(() => undefined);
    return [...this.adapters.values()].map((a) => {
      const rec = this.cache.get(a.config.name) ?? initialRecord(a.config.name);
      return {
        name: a.config.name,
        type: a.config.type,
        status: rec.status,
        latency_ms: rec.latency_ms,
        last_check: rec.last_check,
        last_error: rec.last_error,
        models: [...a.config.models],
        upstream_models: rec.models,
        priority: a.config.priority,
      };
    });
  }
}
