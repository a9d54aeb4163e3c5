import { Redis } from 'ioredis';

export const REDIS_URL = process.env.WARDEN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

export function connect(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: false });
}

/** Deletes every key under a test's own prefix. */
export async function wipe(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  for (let i = 0; i < 1000; i++) {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length) await redis.del(...keys);
    cursor = next;
    if (cursor === '0') break;
  }
}
