/**
 * Time buckets the aggregates are kept in. Every event is added to the bucket of each
 * resolution that contains it, so a query reads at most a few hundred buckets whatever its span:
 * whole days from day buckets, the hours at either edge from hour buckets, the minutes at the
 * very edges from minute buckets.
 */

export type Resolution = 'minute' | 'hour' | 'day';

export const RESOLUTIONS: readonly Resolution[] = ['minute', 'hour', 'day'];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const BUCKET_MS: Record<Resolution, number> = { minute: MINUTE, hour: HOUR, day: DAY };

/** How long buckets of each resolution are kept: minutes for 48 h, hours for 90 days, days for 2 years. */
export const RETENTION_MS: Record<Resolution, number> = { minute: 48 * HOUR, hour: 90 * DAY, day: 730 * DAY };

export function bucketStart(res: Resolution, t: number): number {
  return Math.floor(t / BUCKET_MS[res]) * BUCKET_MS[res];
}

/** Oldest bucket start of `res` that is surely still kept at `now`. */
export function oldestKept(res: Resolution, now: number): number {
  return bucketStart(res, now - RETENTION_MS[res]) + BUCKET_MS[res];
}

export interface BucketRef {
  res: Resolution;
  start: number;
}

/**
 * The buckets that cover [from, to): `from` is rounded down and `to` up to a minute (or, where
 * minute buckets have expired, to an hour or a day). Greedy: the largest bucket that starts at the
 * cursor and ends within the range, falling back to a coarser bucket when a finer one is gone.
 */
export function planCover(from: number, to: number, now: number): { buckets: BucketRef[]; from: number; to: number } {
  const buckets: BucketRef[] = [];
  let t = bucketStart('minute', from);
  const end = Math.ceil(to / MINUTE) * MINUTE;
  // Every step moves t past the end of the bucket it picked: a few hundred steps for any span.
  while (t < end) {
    const pick = pickAt(t, end, now);
    buckets.push(pick);
    t = pick.start + BUCKET_MS[pick.res];
  }
  return { buckets, from: buckets[0]?.start ?? bucketStart('minute', from), to: Math.max(end, t) };
}

function pickAt(t: number, end: number, now: number): BucketRef {
  for (const res of ['day', 'hour'] as const) {
    if (t % BUCKET_MS[res] === 0 && t + BUCKET_MS[res] <= end && t >= oldestKept(res, now)) return { res, start: t };
  }
  if (t >= oldestKept('minute', now)) return { res: 'minute', start: t };
  // Minute buckets are gone here: the enclosing hour (or day) stands in for them.
  if (bucketStart('hour', t) >= oldestKept('hour', now)) return { res: 'hour', start: bucketStart('hour', t) };
  return { res: 'day', start: bucketStart('day', t) };
}

/** Bucket starts of one resolution covering [from, to), for time series. */
export function seriesBuckets(res: Resolution, from: number, to: number): number[] {
  const out: number[] = [];
  const size = BUCKET_MS[res];
  for (let t = bucketStart(res, from); t < to; t += size) out.push(t);
  return out;
}
