import { Redis } from 'ioredis';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A unique key prefix for one suite, a client to inspect Redis, and a clean-up that deletes the suite's keys. */
export async function redisForSuite(name: string): Promise<{ prefix: string; redis: Redis; cleanup(): Promise<void> }> {
  const prefix = `warden-test-${name}-${process.pid}-${Date.now()}:`;
  const redis = new Redis(REDIS_URL, { lazyConnect: true });
  await redis.connect();
  return {
    prefix,
    redis,
    async cleanup() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
