import { rmSync } from 'node:fs';
import { expect } from 'chai';
import Database from 'better-sqlite3';
import { MemoryApiKeyStore, RedisApiKeyStore, StaleIfErrorKeyStore, type ApiKeyStore } from '../../src/auth/api-keys.js';
import { openDatabase } from '../../src/storage/sqlite/database.js';
import { SqliteApiKeyStore } from '../../src/storage/sqlite/keys.js';
import { MIGRATIONS } from '../../src/storage/sqlite/migrations.js';
import { exportSqlite } from '../../src/storage/transfer.js';
import { redisForSuite } from '../../harness/redis.js';
import { freshDb } from '../support/sqlite.js';

/** An API key's policy (docs/policies.md), the same on every store: set at creation, changed by an admin, read by lookup. */
function policySuite(name: string, make: () => Promise<{ store: ApiKeyStore; done(): Promise<void> | void }>) {
  describe(`API key policy on ${name}`, () => {
    let store: ApiKeyStore;
    let done: () => Promise<void> | void;
    beforeEach(async () => ({ store, done } = await make()));
    afterEach(async () => done());

    it('keeps the policy given at creation, and none when none was given', async () => {
      const a = await store.create({ name: 'a', role: 'service', policy: 'banking' });
      const b = await store.create({ name: 'b', role: 'service' });
      expect(a.key.policy).to.equal('banking');
      expect(b.key.policy).to.equal(null);
      const found = await store.lookup(a.secret);
      expect(found.ok && found.key.policy).to.equal('banking');
      expect((await store.get(b.key.id))!.policy).to.equal(null);
    });

    it('setPolicy changes it (and null clears it) for the next lookup; an unknown id is null', async () => {
      const a = await store.create({ name: 'a', role: 'service' });
      expect((await store.setPolicy(a.key.id, 'strict'))!.policy).to.equal('strict');
      const found = await store.lookup(a.secret);
      expect(found.ok && found.key.policy).to.equal('strict');
      expect((await store.list()).find((k) => k.id === a.key.id)!.policy).to.equal('strict');
      expect((await store.setPolicy(a.key.id, null))!.policy).to.equal(null);
      const cleared = await store.lookup(a.secret);
      expect(cleared.ok && cleared.key.policy).to.equal(null);
      expect(await store.setPolicy('key_nope', 'strict')).to.equal(null);
    });

    it('a revocation is kept when the policy changes after it', async () => {
      const a = await store.create({ name: 'a', role: 'service' });
      await store.revoke(a.key.id);
      expect((await store.setPolicy(a.key.id, 'strict'))!.revoked_at).to.be.a('string');
      expect(await store.lookup(a.secret)).to.deep.equal({ ok: false, reason: 'revoked' });
    });
  });
}

policySuite('memory', async () => ({ store: new MemoryApiKeyStore(), done: () => undefined }));
policySuite('memory behind StaleIfErrorKeyStore', async () => ({ store: new StaleIfErrorKeyStore(new MemoryApiKeyStore()), done: () => undefined }));
policySuite('SQLite', async () => {
  const db = freshDb();
  return { store: new SqliteApiKeyStore(db.opened.db, db.writer), done: () => db.cleanup() };
});
policySuite('Redis', async () => {
  const suite = await redisForSuite('key-policy');
  return { store: new RedisApiKeyStore(suite.redis, suite.prefix), done: () => suite.cleanup() };
});

describe('SQLite migration 2: api_keys.policy', () => {
  it('warden db export carries a key\'s policy, and a key restored from it keeps it', async () => {
    const db = freshDb();
    try {
      const { key } = await new SqliteApiKeyStore(db.opened.db, db.writer).create({ name: 'a', role: 'service', policy: 'banking' });
      const exported = exportSqlite(db.file, { scans: 0 });
      const row = exported.keys.find((k) => k.id === key.id)!;
      expect(row.policy).to.equal('banking');
      const into = new MemoryApiKeyStore();
      const { hash, ...record } = row;
      expect(await into.restore(record, hash)).to.equal(true);
      expect((await into.get(key.id))!.policy).to.equal('banking');
    } finally {
      db.cleanup();
    }
  });

  it('a database from before policies gains the column, its keys with no policy', async () => {
    const db = freshDb();
    const file = db.file;
    db.opened.close();
    // Rebuild the file as migration 1 left it (and nothing after it), with one key.
    rmSync(file, { force: true });
    for (const suffix of ['-wal', '-shm']) rmSync(file + suffix, { force: true });
    const raw = new Database(file);
    raw.exec(MIGRATIONS[0]!);
    raw.prepare("INSERT INTO api_keys (id, hash, name, role, created_at) VALUES ('key_old', ?, 'old', 'service', '2026-01-01T00:00:00.000Z')").run('a'.repeat(64));
    raw.pragma('user_version = 1');
    raw.close();
    const opened = openDatabase(file, { role: 'server' });
    try {
      expect(opened.db.pragma('user_version', { simple: true })).to.equal(MIGRATIONS.length);
      const row = opened.db.prepare("SELECT policy FROM api_keys WHERE id = 'key_old'").get() as { policy: string | null };
      expect(row.policy).to.equal(null);
    } finally {
      opened.close();
      db.cleanup();
    }
  });
});
