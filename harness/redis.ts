/** Redis for tests and benchmarks: the one server `npm test` checks for (or starts) on loopback. */
import { Redis } from 'ioredis';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A client that fails a command at once when Redis is gone (no long retry loop in a test). */
export function connect(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: false });
}

/** A unique key prefix for one suite, a client to inspect Redis, and a clean-up that deletes the suite's keys. */
export async function redisForSuite(name: string): Promise<{ prefix: string; redis: Redis; cleanup(): Promise<void> }> {
  const prefix = `warden-test-${name}-${process.pid}-${Date.now()}:`;
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
  return {
    prefix,
    redis,
    async cleanup() {
      await wipePrefix(redis, prefix);
      redis.disconnect();
    },
  };
}

/** Deletes every key under a prefix (SCAN, so a large keyspace is not blocked by KEYS). */
export async function wipePrefix(redis: Redis, prefix: string): Promise<void> {
  // Until the scan comes back to cursor 0: a SCAN always ends, and a cap on the rounds left keys
  // behind once the server held more than rounds x COUNT keys (a jobs bench of 100,000
  // documents leaves that many), which later tests with the same prefix then counted.
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
