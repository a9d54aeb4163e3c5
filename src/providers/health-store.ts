import type { Redis } from 'ioredis';
import type { HealthRecord } from './health-state.js';

/**
 * Where provider health lives: this process, or Redis shared by every instance. Writes are
 * compare-and-set on the record's version, so when several instances observe the same
 * failure only one transition wins, and only the winner emits the event.
 */
export interface HealthStore {
  get(provider: string): Promise<HealthRecord | null>;
  /** Writes `next` only if the stored version still equals `expectedVersion` (0 = absent). */
  compareAndSet(next: HealthRecord, expectedVersion: number): Promise<boolean>;
  /** True for exactly one caller per provider per `ttlMs`: that one probes. */
  acquireProbeLease(provider: string, owner: string, ttlMs: number): Promise<boolean>;
}

export class MemoryHealthStore implements HealthStore {
  private readonly records = new Map<string, HealthRecord>();
  private readonly leases = new Map<string, number>();

  async get(provider: string): Promise<HealthRecord | null> {
    const r = this.records.get(provider);
    return r ? { ...r, models: [...r.models] } : null;
  }

  async compareAndSet(next: HealthRecord, expectedVersion: number): Promise<boolean> {
    const cur = this.records.get(next.provider)?.version ?? 0;
    if (cur !== expectedVersion) return false;
    this.records.set(next.provider, { ...next, models: [...next.models] });
    return true;
  }

  async acquireProbeLease(provider: string, _owner: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    if ((this.leases.get(provider) ?? 0) > now) return false;
    this.leases.set(provider, now + ttlMs);
    return true;
  }
}

// KEYS[1] = record hash; ARGV = expected version, new version, record JSON.
const CAS_SCRIPT = `
local cur = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if cur ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'rec', ARGV[3])
return 1
`;

export class RedisHealthStore implements HealthStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'warden:',
  ) {
    if (!(redis as unknown as { wardenHealthCas?: unknown }).wardenHealthCas) {
      redis.defineCommand('wardenHealthCas', { numberOfKeys: 1, lua: CAS_SCRIPT });
    }
  }

  private key(provider: string): string {
    return `${this.prefix}provider_health:${provider}`;
  }

  async get(provider: string): Promise<HealthRecord | null> {
    const raw = await this.redis.hget(this.key(provider), 'rec');
    return raw ? (JSON.parse(raw) as HealthRecord) : null;
  }

  async compareAndSet(next: HealthRecord, expectedVersion: number): Promise<boolean> {
    const cas = (this.redis as unknown as { wardenHealthCas(k: string, a: number, b: number, c: string): Promise<number> }).wardenHealthCas;
    const won = await cas.call(this.redis, this.key(next.provider), expectedVersion, next.version, JSON.stringify(next));
    return won === 1;
  }

  async acquireProbeLease(provider: string, owner: string, ttlMs: number): Promise<boolean> {
    const ok = await this.redis.set(`${this.prefix}provider_health_lease:${provider}`, owner, 'PX', Math.max(1, Math.round(ttlMs)), 'NX');
    return ok === 'OK';
  }
}
