import type { Counter } from 'prom-client';
import type { Logger } from '../../log.js';
import type { ScanLimits, Storage } from '../types.js';
import { SqliteAggregateStore } from './aggregates.js';
import { startCheckpointer } from './checkpointer.js';
import { openDatabase } from './database.js';
import { moveLegacyStore } from './legacy-location.js';
import { SqliteHealthStore } from './health.js';
import { SqliteChunkSpool } from './job-chunks.js';
import { SqliteJobStore } from './jobs.js';
import { SqliteApiKeyStore } from './keys.js';
import { SqliteReportStore } from './reports.js';
import { SqliteScanStore } from './scans.js';
import { SqliteInstanceSecrets } from './secrets.js';
import { SqliteSettingsStore } from './settings.js';
import { SqliteSpendStore } from './spend.js';
import { WriteQueue } from './writer.js';

/** How often expired records, buckets, marks and reports are deleted. */
const PRUNE_EVERY_MS = 60_000;

/**
 * The SQLite backend: one file, one connection, one writer (the WriteQueue), every store on it.
 * Retention runs every minute, a few thousand rows per turn of the event loop.
 */
export async function openSqliteStorage(opts: {
  path: string;
  log: Logger;
  failures: Counter<'store'>;
  onWriteHealth?: (healthy: boolean, detail: string) => void;
}): Promise<Storage & { pruneNow(): Promise<void> }> {
  moveLegacyStore(opts.path, opts.log);
  const opened = openDatabase(opts.path, { role: 'server' });
  const { db, file } = opened;
  const checkpointer = await startCheckpointer(db, file, opts.log);
  let lastError: string | null = null;
  const writer = new WriteQueue(db, file, {
    failed: (store, err) => {
      opts.failures.inc({ store });
      const first = lastError === null;
      lastError = `${store}: ${err.message}`;
      opts.log.error({ file, store, err: err.message }, 'storage write failed');
      if (first) opts.onWriteHealth?.(false, `storage: writes to ${file} fail (${err.message}); requests that need them answer 503`);
    },
    recovered: () => {
      lastError = null;
      opts.log.info({ file }, 'storage writes succeed again');
      opts.onWriteHealth?.(true, `storage: writes to ${file} succeed again`);
    },
  });
  const aggregates = new SqliteAggregateStore(db, writer);
  const spend = new SqliteSpendStore(db, writer);
  const settings = new SqliteSettingsStore(db, writer);
  const scanStores: { store: SqliteScanStore; limits: () => ScanLimits }[] = [];
  const reportStores: SqliteReportStore[] = [];
  const jobStores: SqliteJobStore[] = [];

  const pruneNow = async (): Promise<void> => {
    try {
      const now = Date.now();
      aggregates.prune(now);
      spend.prune(now);
      for (const r of reportStores) r.prune(now);
      for (const j of jobStores) j.prune(now);
      for (const { store, limits } of scanStores) {
        const { maxScans, retentionDays } = limits();
        // A chunk per turn: requests are served between chunks.
        while (store.prune(maxScans, retentionDays) > 0) await new Promise((r) => setImmediate(r));
      }
    } catch (err) {
      opts.log.warn({ file, err: (err as Error).message }, 'storage retention run failed; retrying at the next one');
    }
  };
  let pruning: Promise<void> | null = null;
  const timer = setInterval(() => void (pruning ??= pruneNow().finally(() => (pruning = null))), PRUNE_EVERY_MS);
  timer.unref();

  return {
    backend: 'sqlite',
    file,
    keys: new SqliteApiKeyStore(db, writer),
    settings,
    secrets: new SqliteInstanceSecrets(db, writer),
    aggregates,
    spend,
    health: new SqliteHealthStore(db, writer),
    scans: (limits) => {
      const store = new SqliteScanStore(db, writer);
      scanStores.push({ store, limits });
      return store;
    },
    reports: (ttl) => {
      const store = new SqliteReportStore(db, writer, ttl);
      reportStores.push(store);
      return store;
    },
    jobs: (ttl) => {
      const store = new SqliteJobStore(db, writer, file, ttl, opts.log);
      jobStores.push(store);
      return { store, spool: new SqliteChunkSpool(db, writer, store, opts.log) };
    },
    status: () => ({ backend: 'sqlite', file, writes: lastError ? 'failing' : 'ok', last_error: lastError }),
    pruneNow,
    close: async () => {
      clearInterval(timer);
      await pruning;
      // What is still waiting is written first, then the checkpoint thread stops.
      const last = aggregates.flush().catch((err: Error) => opts.log.error({ file, err: err.message }, 'analytics counters could not be written at close'));
      writer.flush();
      await last;
      await checkpointer.stop();
      opened.close();
    },
  };
}
