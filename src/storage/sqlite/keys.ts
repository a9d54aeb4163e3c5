import { SECRET_SHAPE, generateSecret, hashSecret, judge, newRecord, type ApiKeyRecord, type ApiKeyStore, type KeyLookup, type NewApiKey } from '../../auth/api-keys.js';
import type { SqliteDb } from './database.js';
import type { WriteQueue } from './writer.js';

interface KeyRow extends ApiKeyRecord {
  hash: string;
}

const COLUMNS = 'id, name, role, created_at, last_used_at, expires_at, rate_limit, revoked_at, policy';

function recordOf(row: KeyRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    rate_limit: row.rate_limit,
    revoked_at: row.revoked_at,
    policy: row.policy ?? null,
  };
}

/**
 * Keys in the `api_keys` table, the secret's SHA-256 beside each. A creation or revocation is
 * committed before it returns; last-use times go through the batched writer.
 */
export class SqliteApiKeyStore implements ApiKeyStore {
  private readonly byHash;
  private readonly byId;
  private readonly all;
  private readonly insert;
  private readonly revokeStmt;
  private readonly touchStmt;
  private readonly policyStmt;

  constructor(
    db: SqliteDb,
    private readonly writer: WriteQueue,
  ) {
    this.byHash = db.prepare<[string], KeyRow>(`SELECT ${COLUMNS}, hash FROM api_keys WHERE hash = ?`);
    this.byId = db.prepare<[string], KeyRow>(`SELECT ${COLUMNS}, hash FROM api_keys WHERE id = ?`);
    this.all = db.prepare<[], KeyRow>(`SELECT ${COLUMNS}, hash FROM api_keys ORDER BY created_at, id`);
    this.insert = db.prepare(`INSERT INTO api_keys (${COLUMNS}, hash) VALUES (@id, @name, @role, @created_at, @last_used_at, @expires_at, @rate_limit, @revoked_at, @policy, @hash)`);
    this.revokeStmt = db.prepare('UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?');
    this.touchStmt = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
    this.policyStmt = db.prepare('UPDATE api_keys SET policy = ? WHERE id = ?');
  }

  async create(input: NewApiKey, secret = generateSecret()) {
    const hash = hashSecret(secret);
    const existing = this.byHash.get(hash);
    if (existing) return { key: recordOf(existing), secret };
    const record = newRecord(input);
    this.writer.now('keys', () => this.insert.run({ ...record, policy: record.policy ?? null, hash }));
    return { key: record, secret };
  }

  async lookup(secret: string): Promise<KeyLookup> {
    if (!SECRET_SHAPE.test(secret)) return { ok: false, reason: 'malformed' };
    const hash = hashSecret(secret);
    const row = this.byHash.get(hash);
    return judge(row ? recordOf(row) : null, row?.hash ?? null, hash);
  }

  async list() {
    return this.all.all().map(recordOf);
  }

  async get(id: string) {
    const row = this.byId.get(id);
    return row ? recordOf(row) : null;
  }

  async revoke(id: string) {
    if (!this.byId.get(id)) return null;
    this.writer.now('keys', () => this.revokeStmt.run(new Date().toISOString(), id));
    return recordOf(this.byId.get(id)!);
  }

  async setPolicy(id: string, policy: string | null) {
    if (!this.byId.get(id)) return null;
    this.writer.now('keys', () => this.policyStmt.run(policy, id));
    return recordOf(this.byId.get(id)!);
  }

  async touch(id: string, at: Date) {
    await this.writer.enqueue('keys', () => void this.touchStmt.run(at.toISOString(), id));
  }

  async restore(record: ApiKeyRecord, hash: string) {
    if (this.byHash.get(hash) || this.byId.get(record.id)) return false;
    this.writer.now('keys', () => this.insert.run({ ...record, policy: record.policy ?? null, hash }));
    return true;
  }

  /** For `warden db export`. */
  exportAll(): KeyRow[] {
    return this.all.all();
  }
}
