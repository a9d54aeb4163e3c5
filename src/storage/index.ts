import type { Redis } from 'ioredis';
import { Counter, type Registry } from 'prom-client';
import { MemoryAggregateStore, RedisAggregateStore } from '../analytics/store.js';
import { MemoryApiKeyStore, RedisApiKeyStore, StaleIfErrorKeyStore } from '../auth/api-keys.js';
import { MemoryInstanceSecrets, RedisInstanceSecrets } from '../auth/instance-secrets.js';
import type { WardenConfig } from '../config/types.js';
import { MemoryJobStore } from '../jobs/memory-store.js';
import { RedisJobStore } from '../jobs/redis-store.js';
import type { Logger } from '../log.js';
import { MemoryHealthStore, RedisHealthStore } from '../providers/health-store.js';
import { MemoryReportStore, RedisReportStore } from '../reports/store.js';
import { MemoryScanStore } from '../scan-service/memory-store.js';
import { RedisScanStore } from '../scan-service/redis-store.js';
import { MemorySettingsStore, RedisSettingsStore } from '../settings/store.js';
import { MemorySpendStore, RedisSpendStore } from '../spend/store.js';
import { connectBatchedRedis } from './redis-connection.js';
import { openSqliteStorage } from './sqlite/index.js';
import type { Storage, StorageBackend } from './types.js';

export type { ScanLimits, Storage, StorageBackend } from './types.js';

/** storage.backend when set; else Redis when redis.url is set, else SQLite. */
export function storageBackendOf(config: Pick<WardenConfig, 'storage' | 'redis'>): StorageBackend {
  return config.storage.backend ?? (config.redis.url ? 'redis' : 'sqlite');
}

export interface StorageContext {
  config: WardenConfig;
  redis: Redis | null;
  registry: Registry;
  log: Logger;
  /** Told when durable writes start failing and when they succeed again. */
  onWriteHealth?: (healthy: boolean, detail: string) => void;
}

export async function openStorage(ctx: StorageContext): Promise<Storage> {
  const backend = storageBackendOf(ctx.config);
  if (backend === 'sqlite') {
    const failures = new Counter({
      name: 'warden_storage_write_failures_total',
      help: 'Writes the SQLite store refused (disk full, file read-only), by store; each one failed its request or was logged.',
      labelNames: ['store'],
      registers: [ctx.registry],
    });
    return openSqliteStorage({ path: ctx.config.storage.sqlite_path, log: ctx.log, failures, onWriteHealth: ctx.onWriteHealth });
  }
  if (backend === 'redis') {
    const redis = ctx.redis;
    if (!redis) throw new Error('storage.backend is redis but no Redis connection was made (redis.url)');
    const prefix = ctx.config.redis.key_prefix;
    // Records, counters and spend are written after the answer: their own, pipelined connection.
    const batched = await connectBatchedRedis(redis, ctx.log);
    return {
      backend,
      file: null,
      keys: new StaleIfErrorKeyStore(new RedisApiKeyStore(redis, prefix)),
      settings: new RedisSettingsStore(redis, prefix),
      secrets: new RedisInstanceSecrets(redis, prefix),
      aggregates: new RedisAggregateStore(batched, prefix),
      spend: new RedisSpendStore(batched, prefix),
      health: new RedisHealthStore(redis, prefix),
      scans: (limits) => new RedisScanStore(batched, prefix, limits),
      reports: (ttl) => new RedisReportStore(redis, prefix, ttl),
      jobs: (ttl) => ({ store: new RedisJobStore(redis, prefix, ttl), spool: null }),
      status: () => ({ backend }),
      close: async () => {
        await batched.quit().catch(() => batched.disconnect());
      },
    };
  }
  return {
    backend,
    file: null,
    keys: new MemoryApiKeyStore(),
    settings: new MemorySettingsStore(),
    secrets: new MemoryInstanceSecrets(),
    aggregates: new MemoryAggregateStore(),
    spend: new MemorySpendStore(),
    health: new MemoryHealthStore(),
    scans: (limits) => new MemoryScanStore(limits),
    reports: (ttl) => new MemoryReportStore(ttl),
    jobs: () => ({ store: new MemoryJobStore(), spool: null }),
    status: () => ({ backend }),
    close: async () => undefined,
  };
}
