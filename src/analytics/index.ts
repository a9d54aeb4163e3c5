import { Counter, type Registry } from 'prom-client';
import type { Redis } from 'ioredis';
import { Analytics } from './service.js';
import { MemoryAggregateStore, RedisAggregateStore } from './store.js';

export { Analytics, AnalyticsQueryError, AnalyticsUnavailableError, parseRange, type Range } from './service.js';

/** Analytics over Redis when configured (every instance answers the same), else in memory. */
export function createAnalytics(opts: { redis: Redis | null; prefix: string; registry: Registry }): Analytics {
  const store = opts.redis ? new RedisAggregateStore(opts.redis, opts.prefix) : new MemoryAggregateStore();
  const writeFailures = new Counter({
    name: 'warden_analytics_write_failures_total',
    help: 'Aggregate updates that failed (the figures then undercount), by source (scan, usage).',
    labelNames: ['source'],
    registers: [opts.registry],
  });
  return new Analytics(store, { writeFailures });
}
