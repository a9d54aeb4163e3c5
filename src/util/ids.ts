import { monotonicFactory } from 'ulid';

/** Prefixed, sortable, unguessable identifiers (ULID: 48-bit time + 80 random bits). */
export type IdPrefix = 'scn' | 'thr' | 'evt' | 'key' | 'rpt' | 'req' | 'ins';

const ulid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** Accepts only ids we could have issued: right prefix and 26 Crockford base32 characters. */
export function isId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(value);
}
