import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { StorageOpenError } from '../errors.js';
import { MIGRATIONS } from './migrations.js';

export type SqliteDb = Database.Database;

/**
 * One SQLite file, opened for Warden: WAL (readers never wait for the writer), synchronous =
 * NORMAL (a commit survives the process being killed; the last commits before a power cut may
 * not), the schema brought up to date, and for a server an instance lock held until exit.
 */
export interface OpenedDatabase {
  readonly file: string;
  readonly db: SqliteDb;
  /** Copies the WAL into the main file, so copying warden.db alone is a complete backup. */
  checkpoint(): void;
  close(): void;
}

/**
 * `server`: takes the instance lock (a second server on the same file is refused).
 * `tool`: CLI commands next to a running server; SQLite's own locking orders their writes.
 */
export function openDatabase(path: string, opts: { role: 'server' | 'tool' }): OpenedDatabase {
  const file = resolve(path);
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (err) {
    throw new StorageOpenError(file, `cannot create the folder of the database ${file}: ${(err as Error).message}. Create it, or set storage.sqlite_path to a writable place.`);
  }
  const lock = opts.role === 'server' ? acquireInstanceLock(file) : null;
  let db: SqliteDb | undefined;
  try {
    // Created owner-only: the file holds the instance's JWT signing secret.
    if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
    db = new Database(file, { timeout: 5000 });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    migrate(db, file);
    // Damage the header check above misses (overwritten pages) fails the start, not a request
    // later. quick_check reads every page once: about a second per few hundred MB.
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw Object.assign(new Error(`integrity check: ${String(check)}`), { code: 'SQLITE_CORRUPT' });
  } catch (err) {
    db?.close();
    lock?.close();
    if (err instanceof StorageOpenError) throw err;
    throw new StorageOpenError(file, describeOpenFailure(file, err as Error & { code?: string }));
  }
  const opened = db;
  return {
    file,
    db: opened,
    checkpoint: () => void opened.pragma('wal_checkpoint(TRUNCATE)'),
    close: () => {
      if (opened.open && opts.role === 'server') {
        // A server's clean close leaves no WAL behind: the file alone is the whole database.
        try {
          opened.pragma('wal_checkpoint(TRUNCATE)');
        } catch {
          /* the close below still releases the file */
        }
      }
      if (opened.open) opened.close();
      if (lock?.open) lock.close();
    },
  };
}

function migrate(db: SqliteDb, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > MIGRATIONS.length) {
    throw new StorageOpenError(
      file,
      `the database ${file} has schema version ${version}, newer than this Warden understands (${MIGRATIONS.length}): it was written by a newer Warden. Run that version, or point storage.sqlite_path at another file.`,
    );
  }
  for (let v = version; v < MIGRATIONS.length; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}

function describeOpenFailure(file: string, err: Error & { code?: string }): string {
  const code = err.code ?? '';
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return `the database ${file} is damaged or is not a Warden database (${err.message}). Restore it from a backup, or move it aside to start with an empty one (its keys and records are then not used).`;
  }
  if (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_PERM') || code === 'EACCES' || code === 'EPERM') {
    return `cannot open the database ${file} for reading and writing (${err.message}). Check that this user may read and write the file and its folder, or set storage.sqlite_path elsewhere.`;
  }
  if (code === 'SQLITE_FULL' || code === 'ENOSPC') return `the disk holding ${file} is full (${err.message}). Free space and start again.`;
  return `cannot open the database ${file}: ${err.message} (${code || 'no code'}).`;
}

/**
 * One server per file. The lock is a small SQLite file beside the database held in exclusive
 * locking mode: the operating system drops it when the process ends however it ends (SIGKILL
 * included), so there is no stale lock to clean up, and a pid that was reused cannot fool it.
 */
export function acquireInstanceLock(file: string): SqliteDb {
  const lockFile = `${file}.lock`;
  let lock: SqliteDb | undefined;
  try {
    lock = new Database(lockFile, { timeout: 0 });
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER NOT NULL, since TEXT NOT NULL)');
    lock.transaction(() => {
      lock!.exec('DELETE FROM holder');
      lock!.prepare('INSERT INTO holder VALUES (?, ?)').run(process.pid, new Date().toISOString());
    })();
    return lock;
  } catch (err) {
    lock?.close();
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new StorageOpenError(
        file,
        `the database ${file} is in use by another Warden server (it holds ${lockFile}). One server per database file: stop the other one, give this one its own storage.sqlite_path, or run several instances on Redis (redis.url).`,
      );
    }
    throw new StorageOpenError(file, `cannot take the instance lock ${lockFile}: ${(err as Error).message}. Check that this user may write the folder of ${file}.`);
  }
}
