import { WardenError } from '../errors.js';
import { log } from '../log.js';
import type { ProxyMetrics } from '../metrics/proxy.js';
import { AnthropicAdapter } from './anthropic.js';
import { CircuitBreaker } from './breaker.js';
import { modelMatches } from './config.js';
import { UpstreamError } from './errors.js';
import type { ProviderHealth } from './health.js';
import type { RecordedStatus } from './health-state.js';
import { OpenAIAdapter } from './openai.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, ProviderAdapter, ProviderConfig } from './types.js';

export function createAdapter(config: ProviderConfig): ProviderAdapter {
  return config.type === 'anthropic' ? new AnthropicAdapter(config) : new OpenAIAdapter(config);
}

const STATUS_RANK: Record<RecordedStatus, number> = { healthy: 0, unknown: 0, degraded: 1, unhealthy: 2 };

export interface Routed<T> {
  result: T;
  provider: ProviderConfig;
  /** Upstream time of the winning attempt (ms): whole call, or time to headers when streamed. */
  upstreamMs: number;
  /** Everything spent on attempts that failed and on back-off (ms). */
  wastedMs: number;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

function outcomeLabel(err: UpstreamError): string {
  if (err.upstreamStatus) return String(err.upstreamStatus);
  switch (err.failure) {
    case 'timeout': return 'timeout';
    case 'connect': return 'connect_error';
    case 'too_large': return 'too_large';
    case 'aborted': return 'client_closed';
    default: return 'bad_response';
  }
}

/**
 * Picks providers for a model and survives their failures: candidates serving the model, by
 * health then priority, skipping open circuit breakers; each gets 1 + max_retries attempts
 * with exponential back-off on connection errors, 5xx and time-outs, then the next one.
 * A 4xx, a malformed answer or the client going away ends the search at once.
 */
export class ProviderRouter {
  readonly adapters: ProviderAdapter[];
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(
    providers: ProviderConfig[],
    private readonly opts: { health?: ProviderHealth; metrics?: ProxyMetrics; adapterFactory?: (c: ProviderConfig) => ProviderAdapter } = {},
  ) {
    this.adapters = providers.map(opts.adapterFactory ?? createAdapter);
    for (const p of providers) this.breakers.set(p.name, new CircuitBreaker(p.breaker_failures, p.breaker_cooldown_ms));
  }

  /** The health checker probes through this router's adapters, so it is attached after both exist. */
  attachHealth(health: ProviderHealth): void {
    this.opts.health = health;
  }

  /** The adapters serving `model`, best first. Throws 503 if none exist at all, 404 for an unknown model. */
  candidates(model: string): ProviderAdapter[] {
    if (this.adapters.length === 0) {
      throw new WardenError(503, 'upstream_error', 'No upstream provider is configured; add one under `providers` in warden.yaml.', {
        code: 'no_providers_configured',
      });
    }
    const serving = this.adapters.filter((a) => modelMatches(a.config.models, model));
    if (serving.length === 0) {
      throw new WardenError(404, 'not_found_error', `The model "${model}" is not served by any configured provider.`, {
        code: 'model_not_found',
        param: 'model',
      });
    }
    if (serving.length === 1) return serving; // nothing to order
    const rank = (a: ProviderAdapter) => STATUS_RANK[this.opts.health?.status(a.config.name) ?? 'unknown'];
    return serving
      .map((a, i) => ({ a, i }))
      .sort((x, y) => rank(x.a) - rank(y.a) || x.a.config.priority - y.a.config.priority || x.i - y.i)
      .map((x) => x.a);
  }

  breakerState(name: string) {
    return this.breakers.get(name)?.state ?? 'closed';
  }

  complete(req: ChatRequest, signal: AbortSignal): Promise<Routed<ChatCompletion>> {
    return this.route(req, signal, false, (a) => a.complete(req, signal));
  }

  stream(req: ChatRequest, signal: AbortSignal): Promise<Routed<AsyncIterable<ChatCompletionChunk>>> {
    return this.route(req, signal, true, (a) => a.stream(req, signal));
  }

  /** Feedback after a stream that was routed successfully later failed (or finished). */
  streamEnded(provider: string, err: UpstreamError | null, model: string): void {
    if (!err) return;
    if (err.failure === 'aborted') return;
    this.opts.metrics?.upstreamRequests.inc({ provider, model, status: `stream_${outcomeLabel(err)}` });
    if (err.retryable || err.failure === 'bad_response' || err.failure === 'too_large') {
      this.breakers.get(provider)?.onFailure();
      this.opts.health?.recordTraffic(provider, false, 0, err.summary);
    }
  }

  private async route<T>(req: ChatRequest, signal: AbortSignal, streaming: boolean, call: (a: ProviderAdapter) => Promise<T>): Promise<Routed<T>> {
    const started = performance.now();
    let lastError: UpstreamError | null = null;
    let tried = 0;
    for (const adapter of this.candidates(req.model)) {
      const p = adapter.config;
      const breaker = this.breakers.get(p.name)!;
      for (let attempt = 0; attempt <= p.max_retries; attempt++) {
        if (signal.aborted) throw new UpstreamError(p.name, 'aborted', 499, 'api_error', 'The client went away.', { code: 'client_closed_request' });
        if (!breaker.tryAcquire()) break;
        tried++;
        const t0 = performance.now();
        try {
          const result = await call(adapter);
          const ms = performance.now() - t0;
          breaker.onSuccess();
          this.opts.metrics?.upstreamRequests.inc({ provider: p.name, model: req.model, status: '200' });
          this.opts.metrics?.upstreamLatency.observe({ provider: p.name, stream: String(streaming) }, ms / 1000);
          this.opts.health?.recordTraffic(p.name, true, ms);
          return { result, provider: p, upstreamMs: ms, wastedMs: t0 - started };
        } catch (err) {
          if (!(err instanceof UpstreamError)) {
            breaker.onNeutral();
            throw err;
          }
          lastError = err;
          this.opts.metrics?.upstreamRequests.inc({ provider: p.name, model: req.model, status: outcomeLabel(err) });
          if (err.failure === 'aborted' || err.failure === 'status_4xx') {
            breaker.onNeutral();
            throw err;
          }
          breaker.onFailure();
          this.opts.health?.recordTraffic(p.name, false, performance.now() - t0, err.summary);
          if (!err.retryable) throw err;
          this.opts.metrics?.failovers.inc({ from: p.name, reason: err.failure });
          log.warn({ provider: p.name, attempt, failure: err.failure, status: err.upstreamStatus }, 'upstream attempt failed');
          if (attempt < p.max_retries) {
            const backoff = p.retry_backoff_ms * 2 ** attempt * (0.5 + Math.random() / 2);
            await sleep(backoff, signal);
          }
        }
      }
    }
    if (lastError) throw lastError;
    throw new WardenError(503, 'upstream_error', `No healthy provider is available for model "${req.model}" right now${tried === 0 ? ' (every circuit breaker is open)' : ''}.`, {
      code: 'no_healthy_provider',
      headers: { 'Retry-After': '5' },
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.adapters.map((a) => a.close()));
  }
}
