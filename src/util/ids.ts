import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Prefixed, sortable, unguessable identifiers (ULID: 48-bit time + 80 random bits). */
export type IdPrefix = 'scn' | 'thr' | 'evt' | 'key' | 'rpt' | 'req' | 'ins' | 'job';

/**
 * ulid's default PRNG asks the OS-seeded CSPRNG for ONE byte per character: 16 calls per id,
 * several ids per request (request, scan, threat, event). The same CSPRNG bytes are drawn
 * 4 KiB at a time here and handed out one by one, exactly as ulid uses them (byte / 256).
 */
const pool = new Uint8Array(4096);
let next = pool.length;
function cryptoByte(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

const ulid = monotonicFactory(cryptoByte);

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** Accepts only ids we could have issued: right prefix and 26 Crockford base32 characters. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(value);
}
