import type { ApiKeyRecord } from '../auth/api-keys.js';
import type { ScanRecord } from '../scan-service/record.js';
import type { RuntimeSettings } from '../settings/store.js';
import type { Storage } from './index.js';
import { openDatabase } from './sqlite/database.js';

/** What `warden db export` writes and `warden db import` reads (JSON). */
export interface ExportFile {
  format: 'warden-export';
  version: 1;
  exported_at: string;
  source: string;
  /** Every key with the SHA-256 of its secret (secrets are never stored, so never exported). */
  keys: (ApiKeyRecord & { hash: string })[];
  settings: RuntimeSettings;
  /** The newest scan records, newest first. */
  scans: ScanRecord[];
}

/**
 * Reads keys, settings and the newest `scans` records out of an SQLite file. Works next to a
 * running server (a reader does not block it). Analytics, spend and reports are not exported:
 * they are rebuilt by traffic on the new backend.
 */
export function exportSqlite(path: string, opts: { scans: number }): ExportFile {
  const opened = openDatabase(path, { role: 'tool' });
  try {
    const { db } = opened;
    const keys = db.prepare('SELECT id, name, role, created_at, last_used_at, expires_at, rate_limit, revoked_at, policy, hash FROM api_keys ORDER BY created_at, id').all() as ExportFile['keys'];
    const rawSettings = db.prepare("SELECT value FROM settings WHERE name = 'overrides'").pluck().get() as string | undefined;
    const scans = (db.prepare('SELECT record FROM scans ORDER BY id DESC LIMIT ?').pluck().all(opts.scans) as string[]).map((r) => JSON.parse(r) as ScanRecord);
    return { format: 'warden-export', version: 1, exported_at: new Date().toISOString(), source: opened.file, keys, settings: rawSettings ? (JSON.parse(rawSettings) as RuntimeSettings) : {}, scans };
  } finally {
    opened.close();
  }
}

/** Checks the shape of an export before anything is written; the message says what is wrong. */
export function parseExport(text: string, source: string): ExportFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not JSON (${(err as Error).message}); expected a file written by "warden db export"`);
  }
  const d = data as Partial<ExportFile>;
  if (d?.format !== 'warden-export') throw new Error(`${source}: not a Warden export (no "format": "warden-export")`);
  if (d.version !== 1) throw new Error(`${source}: export version ${String(d.version)} is not one this Warden reads (1)`);
  if (!Array.isArray(d.keys) || !Array.isArray(d.scans) || typeof d.settings !== 'object' || d.settings === null) throw new Error(`${source}: expected keys (array), settings (object) and scans (array)`);
  d.keys.forEach((k, i) => {
    if (typeof k?.id !== 'string' || !/^[0-9a-f]{64}$/.test(String(k.hash)) || typeof k.role !== 'string') throw new Error(`${source}: keys[${i}] needs an id, a role and a 64-hex hash`);
  });
  d.scans.forEach((s, i) => {
    if (!/^scn_[0-9a-z]{26}$/.test(String(s?.scan_id))) throw new Error(`${source}: scans[${i}] has no valid scan_id`);
  });
  return d as ExportFile;
}

/** Writes an export into a store (Redis when moving from SQLite to several instances). Keys already there are left alone. */
export async function importInto(storage: Storage, data: ExportFile): Promise<{ keys: number; skipped_keys: number; settings: number; scans: number }> {
  let keys = 0;
  for (const { hash, ...record } of data.keys) if (await storage.keys.restore(record, hash)) keys++;
  const names = Object.keys(data.settings);
  if (names.length) await storage.settings.update(data.settings as Record<string, unknown>);
  const scans = storage.scans(() => ({ maxScans: Number.MAX_SAFE_INTEGER, retentionDays: 36_500 }));
  // Oldest first, so stores that keep arrival order keep time order.
  for (const record of [...data.scans].reverse()) await scans.put(record);
  return { keys, skipped_keys: data.keys.length - keys, settings: names.length, scans: data.scans.length };
}
