import { Redis } from 'ioredis';
import { wipePrefix } from '../support/redis.js';

export const REDIS_URL = process.env.WARDEN_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0';

export function connect(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: false });
}

/** Deletes every key under a test's own prefix. */
export const wipe = wipePrefix;
