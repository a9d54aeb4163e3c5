import { readFileSync, writeFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import type { Command } from 'commander';
import { Registry } from 'prom-client';
import { loadConfig } from '../../config/load.js';
import { log } from '../../log.js';
import { openStorage, storageBackendOf } from '../../storage/index.js';
import { openDatabase } from '../../storage/sqlite/database.js';
import { moveLegacyStore } from '../../storage/sqlite/legacy-location.js';
import { exportSqlite, importInto, parseExport } from '../../storage/transfer.js';

/** `warden db …`: the SQLite file's upkeep, and moving its data to another backend. */
export function register(program: Command): void {
  const db = program.command('db').description('The SQLite database: checkpoint for backups, export and import (e.g. to move to Redis).');
  const sqlitePath = (opts: { config?: string; file?: string }): string => {
    if (opts.file) return opts.file;
    const { config } = loadConfig({ path: opts.config });
    if (storageBackendOf(config) !== 'sqlite') throw new Error(`the configuration's storage is ${storageBackendOf(config)}, not sqlite: pass --file <warden.db>`);
    moveLegacyStore(config.storage.sqlite_path, log);
    return config.storage.sqlite_path;
  };

  db.command('checkpoint')
    .description('Copy the write-ahead log into the database file, so that copying the file alone is a full backup.')
    .option('-c, --config <file>', 'warden.yaml (storage.sqlite_path)')
    .option('--file <path>', 'the database file (instead of the configuration)')
    .action((opts: { config?: string; file?: string }) => {
      const opened = openDatabase(sqlitePath(opts), { role: 'tool' });
      try {
        const [r] = opened.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
        if (r?.busy) throw new Error(`${opened.file}: a reader kept the checkpoint from finishing; try again`);
        process.stdout.write(`checkpointed ${opened.file}: the file alone is now a complete copy until the next write\n`);
      } finally {
        opened.close();
      }
    });

  db.command('export')
    .description('Write keys (their hashes), runtime settings and the newest scan records as JSON.')
    .requiredOption('-o, --out <file>', 'where to write the export')
    .option('-c, --config <file>', 'warden.yaml (storage.sqlite_path)')
    .option('--file <path>', 'the database file (instead of the configuration)')
    .option('--scans <n>', 'how many of the newest scan records', '10000')
    .action((opts: { out: string; config?: string; file?: string; scans: string }) => {
      const scans = Number(opts.scans);
      if (!Number.isInteger(scans) || scans < 0) throw new Error('--scans must be a whole number, 0 or more');
      const data = exportSqlite(sqlitePath(opts), { scans });
      writeFileSync(opts.out, JSON.stringify(data), { mode: 0o600 });
      process.stdout.write(`exported ${data.keys.length} keys, ${Object.keys(data.settings).length} settings, ${data.scans.length} scan records to ${opts.out}\n`);
    });

  db.command('import')
    .description("Load an export into the configuration's store (Redis when redis.url is set). Keys already there are kept as they are.")
    .argument('<file>', 'a file written by "warden db export"')
    .option('-c, --config <file>', 'warden.yaml of the target')
    .action(async (file: string, opts: { config?: string }) => {
      const data = parseExport(readFileSync(file, 'utf8'), file);
      const { config } = loadConfig({ path: opts.config });
      const backend = storageBackendOf(config);
      if (backend === 'memory') throw new Error('the target storage is memory: an import would be gone at exit; set redis.url (or storage.backend: sqlite)');
      const redis = config.redis.url ? new Redis(config.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 }) : null;
      await redis?.connect();
      const storage = await openStorage({ config, redis, registry: new Registry(), log });
      try {
        const done = await importInto(storage, data);
        process.stdout.write(`imported into ${backend}: ${done.keys} keys (${done.skipped_keys} already there), ${done.settings} settings, ${done.scans} scan records\n`);
      } finally {
        await storage.settings.close();
        await storage.close();
        redis?.disconnect();
      }
    });
}
