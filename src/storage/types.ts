/**
 * The storage port: what every backend (src/storage/index.ts for memory and Redis,
 * src/storage/sqlite/ for SQLite) provides. Here, apart from both, so neither imports the other's
 * module for the shape they share.
 */
import type { AggregateStore } from '../analytics/store.js';
import type { ApiKeyStore } from '../auth/api-keys.js';
import type { InstanceSecrets } from '../auth/instance-secrets.js';
import type { ChunkSpool, JobStore } from '../jobs/types.js';
import type { HealthStore } from '../providers/health-store.js';
import type { ReportStore } from '../reports/store.js';
import type { ScanStore } from '../scan-service/record.js';
import type { SettingsStore } from '../settings/store.js';
import type { SpendStore } from '../spend/store.js';

export type StorageBackend = 'memory' | 'sqlite' | 'redis';

export interface ScanLimits {
  maxScans: number;
  retentionDays: number;
}

/**
 * Every store Warden keeps data in, from one backend: memory (this process, gone at exit),
 * SQLite (one instance, one file, kept across restarts) or Redis (shared by every instance).
 * Rate-limit counters are not here: they stay in memory unless Redis is configured.
 */
export interface Storage {
  readonly backend: StorageBackend;
  /** The SQLite file, else null. */
  readonly file: string | null;
  readonly keys: ApiKeyStore;
  readonly settings: SettingsStore;
  readonly secrets: InstanceSecrets;
  readonly aggregates: AggregateStore;
  readonly spend: SpendStore;
  readonly health: HealthStore;
  scans(limits: () => ScanLimits): ScanStore;
  reports(ttlSeconds: number): ReportStore;
  /** Scan jobs, and where the embedded queue keeps its unfinished chunks (SQLite only: null elsewhere). */
  jobs(ttlSeconds: number): { store: JobStore; spool: ChunkSpool | null };
  /** For /status. */
  status(): Record<string, unknown>;
  close(): Promise<void>;
}
