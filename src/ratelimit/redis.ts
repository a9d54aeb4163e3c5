import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RateLimitDecision, RateLimitStore } from './types.js';

/**
 * One atomic script per decision, timed by the Redis server's own clock so instances with
 * skewed clocks still agree. Sorted set of admissions scored by time: prune, count, maybe add.
 */
const CONSUME = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[3])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local reset = window
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if oldest[2] then reset = tonumber(oldest[2]) + window - now end
return {allowed, limit - count, reset}
`;

const COUNT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]))
return redis.call('ZCARD', KEYS[1])
`;

type WithScripts = Redis & {
  wardenRateConsume(key: string, limit: number, windowMs: number, member: string): Promise<[number, number, number]>;
  wardenRateCount(key: string, windowMs: number): Promise<number>;
};

export class RedisRateLimitStore implements RateLimitStore {
  readonly backend = 'redis' as const;
  private readonly redis: WithScripts;

  constructor(redis: Redis, private readonly prefix: string) {
    if (!('wardenRateConsume' in redis)) {
      redis.defineCommand('wardenRateConsume', { numberOfKeys: 1, lua: CONSUME });
      redis.defineCommand('wardenRateCount', { numberOfKeys: 1, lua: COUNT });
    }
    this.redis = redis as WithScripts;
  }

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    // The member must be unique per admission: two hits in the same millisecond are two hits.
    const member = `${Date.now()}-${randomBytes(8).toString('hex')}`;
    const [allowed, remaining, resetMs] = await this.redis.wardenRateConsume(this.prefix + key, limit, windowMs, member);
    return { allowed: allowed === 1, limit, remaining: Math.max(0, remaining), resetMs };
  }

  async count(key: string, windowMs: number): Promise<number> {
    return this.redis.wardenRateCount(this.prefix + key, windowMs);
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async close(): Promise<void> {
    // The Redis connection is shared and closed by its owner.
  }
}
