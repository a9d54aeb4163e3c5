/**
 * The zero-config store moved from ./data/warden.db (a folder of tracked training data: removing
 * it to reset the store deleted tracked files) to ./var/warden.db (ignored by git). A checkout
 * that still has the old file gets it moved once, with a log line saying where it went; after
 * that the old place is never looked at again.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Logger } from '../../log.js';
import { acquireInstanceLock } from './database.js';

export const DEFAULT_SQLITE_PATH = './var/warden.db';
export const LEGACY_SQLITE_PATH = './data/warden.db';

/**
 * When `path` is the default place, it holds no store yet and the old default does: moves the
 * store there (the database, its WAL and shared-memory files) and logs it. Refuses (throws) when a
 * server still runs on the old file. Returns the old path when it moved something.
 */
export function moveLegacyStore(path: string, log: Pick<Logger, 'warn'>, cwd = process.cwd()): string | null {
  const target = resolve(cwd, path);
  const legacy = resolve(cwd, LEGACY_SQLITE_PATH);
  if (target !== resolve(cwd, DEFAULT_SQLITE_PATH) || existsSync(target) || !existsSync(legacy)) return null;
  // A server still running on the old file holds its lock: refused with that server named.
  const lock = acquireInstanceLock(legacy);
  try {
    mkdirSync(dirname(target), { recursive: true });
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(legacy + suffix)) renameSync(legacy + suffix, target + suffix);
  } finally {
    lock.close();
    rmSync(`${legacy}.lock`, { force: true });
  }
  log.warn(
    { from: legacy, to: target },
    `moved the SQLite store from ${relative(cwd, legacy)} to ${relative(cwd, target)} (the new default place, ignored by git; data/ holds tracked files). Nothing is read from ${relative(cwd, legacy)} any more.`,
  );
  return legacy;
}
