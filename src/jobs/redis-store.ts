import type { Redis } from 'ioredis';
import type { Target } from '../scanning/types.js';
import type { ChunkResults, Job, JobState, JobStore, PutOutcome } from './types.js';

/** Marks the job done when every document has a result (shared by the scripts below). */
const COMPLETE = `
local function complete(key, now)
  local h = redis.call('HMGET', key, 'state', 'total', 'scanned', 'started_at')
  local state, total, scanned = h[1], h[2], tonumber(h[3] or '0')
  if state == 'done' or state == 'failed' or state == 'cancelled' then return 0 end
  if total == false or total == '' then return 0 end
  if scanned < tonumber(total) then return 0 end
  redis.call('HSET', key, 'state', 'done', 'finished_at', now)
  if h[4] == '' then redis.call('HSET', key, 'started_at', now) end
  return 1
end
`;

/**
 * KEYS: job, results, starts. ARGV: now, ttl seconds, chunk, start, documents, flagged, blocked,
 * errors, the chunk's lines joined by newlines. The first write of a chunk is kept and counted,
 * a later one (a rescanned chunk) changes nothing. Returns {added, completed, the job's fields},
 * or {-1, 0, {}} for no job.
 */
const PUT = `${COMPLETE}
if redis.call('EXISTS', KEYS[1]) == 0 then return {-1, 0, {}} end
local added = 0
if redis.call('HSETNX', KEYS[2], ARGV[3], ARGV[9]) == 1 then
  added = tonumber(ARGV[5])
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
  redis.call('HINCRBY', KEYS[1], 'scanned', added)
  if ARGV[6] ~= '0' then redis.call('HINCRBY', KEYS[1], 'flagged', ARGV[6]) end
  if ARGV[7] ~= '0' then redis.call('HINCRBY', KEYS[1], 'blocked', ARGV[7]) end
  if ARGV[8] ~= '0' then redis.call('HINCRBY', KEYS[1], 'errors', ARGV[8]) end
end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[2])) end
local completed = complete(KEYS[1], ARGV[1])
return {added, completed, redis.call('HGETALL', KEYS[1])}
`;

/**
 * KEYS: results, starts. ARGV: from, to (input indices, to exclusive). The chunks that hold any
 * of [from, to): the one starting at or before `from`, and those starting inside. Returns a flat
 * list of (start, lines joined by newlines).
 */
const READ = `
local out = {}
local function add(list)
  for i = 1, #list, 2 do
    out[#out + 1] = list[i + 1]
    out[#out + 1] = redis.call('HGET', KEYS[1], list[i])
  end
end
add(redis.call('ZREVRANGEBYSCORE', KEYS[2], ARGV[1], '-inf', 'WITHSCORES', 'LIMIT', 0, 1))
add(redis.call('ZRANGEBYSCORE', KEYS[2], '(' .. ARGV[1], '(' .. ARGV[2], 'WITHSCORES'))
return out
`;

/** KEYS: job. ARGV: to, now, error. Returns 1 when the state moved. */
const TRANSITION = `
local h = redis.call('HMGET', KEYS[1], 'state', 'started_at')
local s = h[1]
if not s then return 0 end
if s == 'done' or s == 'failed' or s == 'cancelled' or s == ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[1])
local final = ARGV[1] == 'done' or ARGV[1] == 'failed' or ARGV[1] == 'cancelled'
if (ARGV[1] == 'running' or final) and h[2] == '' then redis.call('HSET', KEYS[1], 'started_at', ARGV[2]) end
if final then redis.call('HSET', KEYS[1], 'finished_at', ARGV[2]) end
if ARGV[3] ~= '' then redis.call('HSET', KEYS[1], 'error', ARGV[3]) end
return 1
`;

/** KEYS: job. ARGV: chunks, total ('' while unknown), now. */
const SET_CHUNKS = `${COMPLETE}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'chunks', ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'total', ARGV[2]) end
return complete(KEYS[1], ARGV[3])
`;

type JobRedis = Redis & {
  wardenJobPut(job: string, results: string, starts: string, ...args: (string | number)[]): Promise<[number, number, string[]]>;
  wardenJobRead(results: string, starts: string, from: number, to: number): Promise<(string | null)[]>;
  wardenJobTransition(job: string, to: string, now: string, error: string): Promise<number>;
  wardenJobSetChunks(job: string, chunks: number, total: string, now: string): Promise<number>;
};

/**
 * Jobs in Redis, shared by every instance: `<prefix>job:<id>` (a hash: state, times, counters),
 * `<prefix>job:<id>:results` (a hash: chunk → its result lines joined by newlines; HSETNX keeps
 * the first, so a rescanned chunk neither duplicates a result nor counts twice),
 * `<prefix>job:<id>:starts` (a sorted set: chunk scored by its first input index, to find the
 * chunks a cursor reads), `<prefix>jobs` (a sorted set by creation time). One write per chunk,
 * not per document: the chunk is the unit of work, and one field per document cost a script
 * argument (and a Lua call) per document. Everything expires `ttlSeconds` after the last write.
 */
export class RedisJobStore implements JobStore {
  readonly backend = 'redis' as const;
  private readonly redis: JobRedis;

  constructor(redis: Redis, private readonly prefix: string, private readonly ttlSeconds: number) {
    this.redis = redis as JobRedis;
    if (!('wardenJobPut' in redis)) {
      redis.defineCommand('wardenJobPut', { numberOfKeys: 3, lua: PUT });
      redis.defineCommand('wardenJobRead', { numberOfKeys: 2, lua: READ });
      redis.defineCommand('wardenJobTransition', { numberOfKeys: 1, lua: TRANSITION });
      redis.defineCommand('wardenJobSetChunks', { numberOfKeys: 1, lua: SET_CHUNKS });
    }
  }

  private key(id: string): string {
    return `${this.prefix}job:${id}`;
  }

  async create(job: Job): Promise<void> {
    const key = this.key(job.id);
    await this.redis.multi()
      .hset(key, {
        id: job.id, state: job.state, source: job.source, created_at: job.created_at, started_at: job.started_at ?? '',
        finished_at: job.finished_at ?? '', chunks: job.chunks, chunk_size: job.chunk_size, accepted_by: job.accepted_by,
        caller: job.caller ?? '', error: job.error ?? '', total: job.counts.total ?? '', scanned: 0, flagged: 0, blocked: 0, errors: 0,
      })
      .expire(key, this.ttlSeconds)
      .zadd(`${this.prefix}jobs`, Date.parse(job.created_at), job.id)
      .exec();
  }

  async get(id: string): Promise<Job | null> {
    const h = await this.redis.hgetall(this.key(id));
    return h.id ? jobOf(h) : null;
  }

  async list(limit: number): Promise<Job[]> {
    const ids = await this.redis.zrevrange(`${this.prefix}jobs`, 0, limit - 1);
    const jobs = await Promise.all(ids.map((id) => this.get(id)));
    const gone = ids.filter((_, i) => jobs[i] === null);
    if (gone.length) await this.redis.zrem(`${this.prefix}jobs`, ...gone);
    return jobs.filter((j): j is Job => j !== null);
  }

  async setChunks(id: string, chunks: number, total: number | null): Promise<Job | null> {
    const r = await this.redis.wardenJobSetChunks(this.key(id), chunks, total === null ? '' : String(total), new Date().toISOString());
    return r < 0 ? null : this.get(id);
  }

  async transition(id: string, to: JobState, detail: { error?: string } = {}): Promise<{ job: Job | null; moved: boolean }> {
    const moved = await this.redis.wardenJobTransition(this.key(id), to, new Date().toISOString(), detail.error ?? '');
    return { job: await this.get(id), moved: moved === 1 };
  }

  async putResults(id: string, r: ChunkResults): Promise<PutOutcome> {
    const key = this.key(id);
    const [added, completed, fields] = await this.redis.wardenJobPut(
      key, `${key}:results`, `${key}:starts`,
      new Date().toISOString(), this.ttlSeconds, r.chunk, r.start, r.lines.length, r.flagged, r.blocked, r.errors, r.lines.join('\n'),
    );
    if (added < 0) return { added: 0, job: null, completed: false };
    return { added, job: jobOf(pairs(fields)), completed: completed === 1 };
  }

  async getResults(id: string, from: number, count: number): Promise<(string | null)[]> {
    const out: (string | null)[] = new Array(Math.max(0, count)).fill(null);
    if (count <= 0) return out;
    const key = this.key(id);
    const flat = await this.redis.wardenJobRead(`${key}:results`, `${key}:starts`, from, from + count);
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const start = Number(flat[i]);
      const block = flat[i + 1];
      if (block === null || block === undefined) continue;
      const lines = block.split('\n');
      for (let k = Math.max(0, from - start); k < lines.length && start + k < from + count; k++) out[start + k - from] = lines[k]!;
    }
    return out;
  }

  async progressSlot(id: string, intervalMs: number): Promise<boolean> {
    return (await this.redis.set(`${this.key(id)}:progress`, '1', 'PX', intervalMs, 'NX')) === 'OK';
  }

  async close(): Promise<void> {}
}

/** HGETALL's answer as a Lua script returns it (a flat list) to the object ioredis gives for HGETALL. */
function pairs(flat: string[]): Record<string, string> {
  const h: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) h[flat[i]!] = flat[i + 1]!;
  return h;
}

function jobOf(h: Record<string, string>): Job {
  const num = (v: string | undefined) => Number(v ?? 0);
  const opt = (v: string | undefined) => (v ? v : null);
  return {
    id: h.id!,
    state: h.state as JobState,
    source: h.source as Target,
    created_at: h.created_at!,
    started_at: opt(h.started_at),
    finished_at: opt(h.finished_at),
    chunks: num(h.chunks),
    chunk_size: num(h.chunk_size),
    accepted_by: h.accepted_by!,
    caller: opt(h.caller),
    error: opt(h.error),
    counts: { total: h.total ? Number(h.total) : null, scanned: num(h.scanned), flagged: num(h.flagged), blocked: num(h.blocked), errors: num(h.errors) },
  };
}
