import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 keeps every broker connection busy while nothing happens: after each check of
 * its pending-request queue, `RequestQueue.scheduleCheckPendingRequests` schedules the next
 * check with `setTimeout(throttledUntil - now)`, a negative delay (1 ms) when the connection is
 * not throttled, even with no request pending. Each connection of each client (the events
 * consumer, the replay reader, the scan-job consumer, the producers) thus wakes the event loop
 * about a thousand times a second for nothing: most of the ~0.07 CPU-second per second an idle
 * instance spent (docs/jobs.md, "Idle instances"). Upstream: tulios/kafkajs issues #1556,
 * #1604, #1704; unmerged fix PR #1667.
 *
 * This wraps the method so that it schedules nothing when no request is pending and the
 * connection is not throttled (then nothing is waiting to be sent; a request pushed later while
 * it cannot be sent schedules its own check, as before). In every other case the original runs.
 * It checks the fields it reads and leaves the method alone if they are not there (another
 * kafkajs version). Applied once, when the first Warden Kafka client is made.
 */
const PATCHED = Symbol.for('warden.kafkajs.idle-fix');

interface QueueLike {
  pending?: unknown[];
  throttledUntil?: number;
  throttleCheckTimeoutId?: unknown;
}

export function fixKafkajsIdleTimers(): boolean {
  const require = createRequire(import.meta.url);
  let RequestQueue: { prototype: Record<string | symbol, unknown> };
  try {
    RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as typeof RequestQueue;
  } catch {
    return false;
  }
  const proto = RequestQueue.prototype;
  if (proto[PATCHED]) return true;
  const original = proto.scheduleCheckPendingRequests as ((this: QueueLike) => void) | undefined;
  if (typeof original !== 'function') return false;
  proto.scheduleCheckPendingRequests = function (this: QueueLike): void {
    if (Array.isArray(this.pending) && this.pending.length === 0 && typeof this.throttledUntil === 'number'
      && this.throttledUntil <= Date.now() && !this.throttleCheckTimeoutId) return;
    original.call(this);
  };
  proto[PATCHED] = true;
  return true;
}
