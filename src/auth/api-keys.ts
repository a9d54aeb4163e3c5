import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Role } from '../config/types.js';
import { SLIDING_WINDOW_LUA, admissionMember } from '../ratelimit/redis.js';
import type { RateLimitDecision } from '../ratelimit/types.js';
import { newId } from '../util/ids.js';

/** What Warden keeps about a key. The secret itself is never stored, only its SHA-256. */
export interface ApiKeyRecord {
  id: string;
  name: string;
  role: Role;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  rate_limit: number | null;
  revoked_at: string | null;
  /** The policy the key's requests get (docs/policies.md); null: the route's, model's or `default`. Absent on keys made before policies. */
  policy?: string | null;
}

export interface NewApiKey {
  name: string;
  role: Role;
  expires_at?: string | null;
  rate_limit?: number | null;
  policy?: string | null;
}

export type KeyLookup = { ok: true; key: ApiKeyRecord } | { ok: false; reason: 'unknown' | 'revoked' | 'expired' | 'malformed' };

/** Memory, SQLite (src/storage/sqlite) and Redis implementations; the auth middleware only sees this. */
export interface ApiKeyStore {
  create(input: NewApiKey, secret?: string): Promise<{ key: ApiKeyRecord; secret: string }>;
  /** Resolves a presented `svc_...` secret. Constant-time on the stored hash. */
  lookup(secret: string): Promise<KeyLookup>;
  /**
   * `lookup`, and for a key that is found, not revoked and not expired, one admission in its
   * rate-limit window (`window` + key id, the key's own rate_limit or `limit` per `windowMs`) in
   * the same round trip. Only stores that keep keys where the rate limiter keeps its windows (Redis)
   * have it; `decision` is null when no admission was made (the caller then asks the limiter).
   */
  lookupAndAdmit?(secret: string, rate: RateRequest): Promise<{ lookup: KeyLookup; decision: RateLimitDecision | null }>;
  list(): Promise<ApiKeyRecord[]>;
  get(id: string): Promise<ApiKeyRecord | null>;
  revoke(id: string): Promise<ApiKeyRecord | null>;
  /** Sets (or with null clears) the key's policy; null when there is no such key. */
  setPolicy(id: string, policy: string | null): Promise<ApiKeyRecord | null>;
  touch(id: string, at: Date): Promise<void>;
  /** `warden db import`: a key as exported (its hash; the secret is never known). False if it is already there. */
  restore(record: ApiKeyRecord, hash: string): Promise<boolean>;
}

/** The rate-limit window a lookup may admit into: its key (before the key id) and the default limit. */
export interface RateRequest {
  window: string;
  limit: number;
  windowMs: number;
}

export const KEY_PREFIX = 'svc_';
export const SECRET_SHAPE = /^svc_[A-Za-z0-9_-]{20,200}$/;

export function generateSecret(): string {
  return KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** Secrets are 256-bit random, so a fast hash is enough (no password stretching needed). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The answer to a lookup, from the stored record and hash (shared by every store). */
export function judge(record: ApiKeyRecord | null, storedHash: string | null, presentedHash: string, now = Date.now()): KeyLookup {
  // Compare even when nothing was found, so timing does not tell unknown from wrong.
  const match = sameHash(storedHash ?? '0'.repeat(64), presentedHash);
  if (!record || !match) return { ok: false, reason: 'unknown' };
  if (record.revoked_at) return { ok: false, reason: 'revoked' };
  if (record.expires_at && Date.parse(record.expires_at) <= now) return { ok: false, reason: 'expired' };
  return { ok: true, key: record };
}

export function newRecord(input: NewApiKey): ApiKeyRecord {
  return {
    id: newId('key'),
    name: input.name,
    role: input.role,
    created_at: new Date().toISOString(),
    last_used_at: null,
    expires_at: input.expires_at ?? null,
    rate_limit: input.rate_limit ?? null,
    revoked_at: null,
    policy: input.policy ?? null,
  };
}

export class MemoryApiKeyStore implements ApiKeyStore {
  private readonly byId = new Map<string, { record: ApiKeyRecord; hash: string }>();
  private readonly byHash = new Map<string, string>();

  async create(input: NewApiKey, secret = generateSecret()) {
    const existing = this.byHash.get(hashSecret(secret));
    if (existing) return { key: this.byId.get(existing)!.record, secret };
    const record = newRecord(input);
    const hash = hashSecret(secret);
    this.byId.set(record.id, { record, hash });
    this.byHash.set(hash, record.id);
    return { key: { ...record }, secret };
  }

  async lookup(secret: string): Promise<KeyLookup> {
    if (!SECRET_SHAPE.test(secret)) return { ok: false, reason: 'malformed' };
    const hash = hashSecret(secret);
    const entry = this.byId.get(this.byHash.get(hash) ?? '');
    return judge(entry ? { ...entry.record } : null, entry?.hash ?? null, hash);
  }

  async list() {
    return [...this.byId.values()].map((e) => ({ ...e.record })).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async get(id: string) {
    const e = this.byId.get(id);
    return e ? { ...e.record } : null;
  }

  async revoke(id: string) {
    const e = this.byId.get(id);
    if (!e) return null;
    e.record.revoked_at ??= new Date().toISOString();
    return { ...e.record };
  }

  async setPolicy(id: string, policy: string | null) {
    const e = this.byId.get(id);
    if (!e) return null;
    e.record.policy = policy;
    return { ...e.record };
  }

  async touch(id: string, at: Date) {
    const e = this.byId.get(id);
    if (e) e.record.last_used_at = at.toISOString();
  }

  async restore(record: ApiKeyRecord, hash: string) {
    if (this.byHash.has(hash) || this.byId.has(record.id)) return false;
    this.byId.set(record.id, { record: { ...record }, hash });
    this.byHash.set(hash, record.id);
    return true;
  }
}

/**
 * A key's record by the hash of its secret, in one round trip (every authenticated request
 * makes this call; as GET then HMGET it was two in a row). The record's key is known only once
 * the id is read, so it is built inside the script: fine on the single Redis Warden supports,
 * not on Redis Cluster. KEYS: the hash index entry; ARGV: the record key prefix.
 * Returns nil, or [record JSON, secret hash, last_used_at].
 */
const LOOKUP = `
local id = redis.call('GET', KEYS[1])
if not id then return nil end
return redis.call('HMGET', ARGV[1] .. id, 'record', 'hash', 'last_used_at')
`;

/**
 * LOOKUP and, for a usable key, the rate limiter's admission (src/ratelimit/redis.ts) in the
 * same script: one round trip instead of two in a row on every request with an API key. The
 * window's key is built from the id inside the script, like the record's. Revoked and expired
 * keys admit nothing (expires_at is an ISO-8601 UTC string as every write path stores it, so it
 * compares as text; `lookup`'s own check still decides whether the key is accepted).
 * KEYS: the hash index entry; ARGV: record prefix, window prefix, default limit, window ms,
 * member, now (ISO). Returns nil, or [record JSON, secret hash, last_used_at] followed, when an
 * admission was made, by allowed (0/1), remaining, reset ms and the limit applied.
 */
const LOOKUP_AND_ADMIT = `${SLIDING_WINDOW_LUA}
local id = redis.call('GET', KEYS[1])
if not id then return nil end
local rec = redis.call('HMGET', ARGV[1] .. id, 'record', 'hash', 'last_used_at')
if not rec[1] then return rec end
local ok, r = pcall(cjson.decode, rec[1])
if not ok or type(r) ~= 'table' then return rec end
if r.revoked_at ~= nil and r.revoked_at ~= cjson.null then return rec end
if type(r.expires_at) == 'string' and r.expires_at <= ARGV[6] then return rec end
local limit = tonumber(ARGV[3])
if type(r.rate_limit) == 'number' then limit = r.rate_limit end
local d = consume(ARGV[2] .. id, limit, tonumber(ARGV[4]), ARGV[5])
rec[4] = d[1]
rec[5] = d[2]
rec[6] = d[3]
rec[7] = limit
return rec
`;

type WithLookup = Redis & {
  wardenKeyLookup(hashKey: string, recordPrefix: string): Promise<(string | null)[] | null>;
  wardenKeyLookupAndAdmit(hashKey: string, recordPrefix: string, windowPrefix: string, limit: number, windowMs: number, member: string, nowIso: string): Promise<(string | number | null)[] | null>;
};

/**
 * Redis layout: `<p>keys:<id>` hash {record JSON, hash}; `<p>keyhash:<sha256>` → id;
 * `<p>keys` set of ids. Every instance sees a revocation at once.
 */
export class RedisApiKeyStore implements ApiKeyStore {
  private readonly redis: WithLookup;

  constructor(redis: Redis, private readonly prefix: string) {
    if (!('wardenKeyLookup' in redis)) {
      redis.defineCommand('wardenKeyLookup', { numberOfKeys: 1, lua: LOOKUP });
      redis.defineCommand('wardenKeyLookupAndAdmit', { numberOfKeys: 1, lua: LOOKUP_AND_ADMIT });
    }
    this.redis = redis as WithLookup;
  }

  async create(input: NewApiKey, secret = generateSecret()) {
    const hash = hashSecret(secret);
    const record = newRecord(input);
    // SET NX on the hash index makes re-creating the bootstrap key on every instance idempotent.
    const claimed = await this.redis.set(`${this.prefix}keyhash:${hash}`, record.id, 'NX');
    if (!claimed) {
      const id = await this.redis.get(`${this.prefix}keyhash:${hash}`);
      const existing = id ? await this.get(id) : null;
      if (existing) return { key: existing, secret };
      await this.redis.set(`${this.prefix}keyhash:${hash}`, record.id);
    }
    await this.redis
      .multi()
      .hset(`${this.prefix}keys:${record.id}`, { record: JSON.stringify(record), hash })
      .sadd(`${this.prefix}keys`, record.id)
      .exec();
    return { key: record, secret };
  }

  async lookup(secret: string): Promise<KeyLookup> {
    if (!SECRET_SHAPE.test(secret)) return { ok: false, reason: 'malformed' };
    const hash = hashSecret(secret);
    const stored = (await this.redis.wardenKeyLookup(`${this.prefix}keyhash:${hash}`, `${this.prefix}keys:`)) ?? [null, null, null];
    const record = stored[0] ? { ...(JSON.parse(stored[0]) as ApiKeyRecord), last_used_at: stored[2] ?? null } : null;
    return judge(record, stored[1] ?? null, hash);
  }

  async lookupAndAdmit(secret: string, rate: RateRequest): Promise<{ lookup: KeyLookup; decision: RateLimitDecision | null }> {
    if (!SECRET_SHAPE.test(secret)) return { lookup: { ok: false, reason: 'malformed' }, decision: null };
    const hash = hashSecret(secret);
    const stored =
      (await this.redis.wardenKeyLookupAndAdmit(`${this.prefix}keyhash:${hash}`, `${this.prefix}keys:`, this.prefix + rate.window, rate.limit, rate.windowMs, admissionMember(), new Date().toISOString())) ??
      [null, null, null];
    const raw = stored[0];
    const record = typeof raw === 'string' ? { ...(JSON.parse(raw) as ApiKeyRecord), last_used_at: (stored[2] as string | null) ?? null } : null;
    const lookup = judge(record, (stored[1] as string | null) ?? null, hash);
    if (!lookup.ok || stored.length < 7) return { lookup, decision: null };
    const limit = Number(stored[6]);
    return { lookup, decision: { allowed: stored[3] === 1, limit, remaining: Math.max(0, Number(stored[4])), resetMs: Number(stored[5]) } };
  }

  async list() {
    const ids = await this.redis.smembers(`${this.prefix}keys`);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return records.filter((r): r is ApiKeyRecord => r !== null).sort((a, b) => a.created_at.localeCompare(b.created_at));
  }

  async get(id: string) {
    const [raw, lastUsed] = await this.redis.hmget(`${this.prefix}keys:${id}`, 'record', 'last_used_at');
    return raw ? { ...(JSON.parse(raw) as ApiKeyRecord), last_used_at: lastUsed ?? null } : null;
  }

  async revoke(id: string) {
    const record = await this.get(id);
    if (!record) return null;
    record.revoked_at ??= new Date().toISOString();
    await this.redis.hset(`${this.prefix}keys:${id}`, 'record', JSON.stringify(record));
    return record;
  }

  /** The record is read, changed and written back inside WATCH/MULTI, so a concurrent revocation is never lost. */
  async setPolicy(id: string, policy: string | null) {
    const key = `${this.prefix}keys:${id}`;
    for (let attempt = 0; attempt < 10; attempt++) {
      const conn = this.redis.duplicate({ enableOfflineQueue: true });
      try {
        await conn.watch(key);
        const [raw, lastUsed] = await conn.hmget(key, 'record', 'last_used_at');
        if (!raw) return null;
        const record: ApiKeyRecord = { ...(JSON.parse(raw) as ApiKeyRecord), policy };
        if (await conn.multi().hset(key, 'record', JSON.stringify(record)).exec()) return { ...record, last_used_at: lastUsed ?? null };
      } finally {
        conn.disconnect();
      }
    }
    throw new Error(`the key ${id} changed concurrently too often; try again`);
  }

  async touch(id: string, at: Date) {
    // A field of its own, so a touch can never overwrite a concurrent revocation.
    await this.redis.hset(`${this.prefix}keys:${id}`, 'last_used_at', at.toISOString());
  }

  async restore(record: ApiKeyRecord, hash: string) {
    if (!(await this.redis.set(`${this.prefix}keyhash:${hash}`, record.id, 'NX'))) return false;
    await this.redis
      .multi()
      .hset(`${this.prefix}keys:${record.id}`, { record: JSON.stringify({ ...record, last_used_at: null }), hash, ...(record.last_used_at ? { last_used_at: record.last_used_at } : {}) })
      .sadd(`${this.prefix}keys`, record.id)
      .exec();
    return true;
  }
}

/** The credential store cannot answer (Redis down) and no recent answer is at hand. */
export class KeyStoreUnavailableError extends Error {}

/**
 * Redis is asked on every request (a revocation takes effect at once everywhere); when Redis
 * cannot answer, the last good answer for the same secret, if under `staleMs` old, is used so
 * an outage degrades to the rate limiter's fail mode instead of locking every caller out.
 */
export class StaleIfErrorKeyStore implements ApiKeyStore {
  private readonly recent = new Map<string, { result: KeyLookup; at: number }>();

  constructor(private readonly inner: ApiKeyStore, private readonly staleMs = 300_000, private readonly maxEntries = 10_000) {}

  async lookup(secret: string): Promise<KeyLookup> {
    const hash = hashSecret(secret);
    try {
      const result = await this.inner.lookup(secret);
      this.remember(hash, result);
      return result;
    } catch (err) {
      const cached = this.recent.get(hash);
      if (cached && Date.now() - cached.at < this.staleMs) {
        if (cached.result.ok && cached.result.key.expires_at && Date.parse(cached.result.key.expires_at) <= Date.now()) return { ok: false, reason: 'expired' };
        return cached.result;
      }
      throw new KeyStoreUnavailableError(`API key store unavailable: ${(err as Error).message}`);
    }
  }

  async lookupAndAdmit(secret: string, rate: RateRequest): Promise<{ lookup: KeyLookup; decision: RateLimitDecision | null }> {
    if (!this.inner.lookupAndAdmit) return { lookup: await this.lookup(secret), decision: null };
    try {
      const out = await this.inner.lookupAndAdmit(secret, rate);
      this.remember(hashSecret(secret), out.lookup);
      return out;
    } catch {
      // Redis did not answer: the last good lookup if recent (or KeyStoreUnavailableError), and
      // no admission, so the rate limiter is asked on its own and its fail mode applies.
      return { lookup: await this.lookup(secret), decision: null };
    }
  }

  private remember(hash: string, result: KeyLookup): void {
    if (this.recent.size >= this.maxEntries) this.recent.delete(this.recent.keys().next().value!);
    this.recent.set(hash, { result, at: Date.now() });
  }

  create(input: NewApiKey, secret?: string) {
    return this.inner.create(input, secret);
  }
  list() {
    return this.inner.list();
  }
  get(id: string) {
    return this.inner.get(id);
  }
  async revoke(id: string) {
    const revoked = await this.inner.revoke(id);
    this.forget(id);
    return revoked;
  }
  async setPolicy(id: string, policy: string | null) {
    const changed = await this.inner.setPolicy(id, policy);
    this.forget(id);
    return changed;
  }
  private forget(id: string): void {
    for (const [hash, entry] of this.recent) if (entry.result.ok && entry.result.key.id === id) this.recent.delete(hash);
  }
  touch(id: string, at: Date) {
    return this.inner.touch(id, at);
  }
  restore(record: ApiKeyRecord, hash: string) {
    return this.inner.restore(record, hash);
  }
}
