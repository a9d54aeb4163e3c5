import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One prom-client Registry per Warden instance (tests run several in one process).
 * Subsystems register their own metrics on it; the HTTP ones live here because the
 * middleware that observes them is generic.
 */
export interface HttpMetrics {
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route' | 'status'>;
  rateLimited: Counter<'scope'>;
  rateLimitBackendErrors: Counter<'fail_mode'>;
  authFailures: Counter<'reason'>;
}

export function createRegistry(labels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(labels);
  collectDefaultMetrics({ register: registry, prefix: 'warden_' });
  return registry;
}

export function createHttpMetrics(registry: Registry): HttpMetrics {
  return {
    requests: new Counter({
      name: 'warden_http_requests_total',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'warden_http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'warden_rate_limit_rejections_total',
      help: 'Requests refused by a rate limit (scope: api, login).',
      labelNames: ['scope'],
      registers: [registry],
    }),
    rateLimitBackendErrors: new Counter({
      name: 'warden_rate_limit_backend_errors_total',
      help: 'Rate-limit decisions the backend (Redis) could not make; fail_mode tells what was done.',
      labelNames: ['fail_mode'],
      registers: [registry],
    }),
    authFailures: new Counter({
      name: 'warden_auth_failures_total',
      help: 'Rejected credentials by reason.',
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}
