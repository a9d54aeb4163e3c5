import type { EventEnvelope } from './types.js';

/** An event with its place in the instance-independent stream. */
export interface LoggedEvent {
  seq: number;
  event: EventEnvelope;
}

/**
 * The last `retention` events of the stream, in stream order, for WebSocket clients that resume
 * with `since`. Fed in order by one source: Kafka's event log topic (seq = its offset, the same
 * on every instance) or, without Kafka, this instance's bus (seq from the clock and a counter).
 * An event whose seq is not past the last one is a redelivery and is dropped.
 */
export class EventLog {
  private readonly events: LoggedEvent[] = [];
  private head = 0;
  private readonly listeners = new Set<(e: LoggedEvent) => void>();
  private last = -1;
  /** Highest seq known NOT to be kept (evicted, or before where this instance started reading). */
  private floor = -1;

  constructor(private readonly retention: number) {}

  get lastSeq(): number {
    return this.last;
  }

  /** Events before this seq (exclusive of it) are not available; used when a reader starts mid-stream. */
  startAt(seq: number): void {
    if (this.size === 0) {
      this.floor = Math.max(this.floor, seq - 1);
      this.last = Math.max(this.last, seq - 1);
    }
  }

  append(seq: number, event: EventEnvelope): boolean {
    if (seq <= this.last) return false;
    this.last = seq;
    if (this.retention > 0) {
      this.events.push({ seq, event });
      if (this.size > this.retention) {
        this.floor = this.events[this.head]!.seq;
        this.head++;
        // Compact now and then rather than shifting on every event.
        if (this.head > 4096 && this.head * 2 > this.events.length) {
          this.events.splice(0, this.head);
          this.head = 0;
        }
      }
    } else {
      this.floor = seq;
    }
    for (const listener of this.listeners) listener({ seq, event });
    return true;
  }

  /**
   * Everything kept after `seq`, oldest first, and whether that is all that happened after it
   * (false: some of it is past the retention and was lost).
   */
  since(seq: number): { events: LoggedEvent[]; complete: boolean } {
    const out: LoggedEvent[] = [];
    // Binary search for the first kept event after seq.
    let lo = this.head;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.events.length; i++) out.push(this.events[i]!);
    return { events: out, complete: seq >= this.floor };
  }

  subscribe(listener: (e: LoggedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  private get size(): number {
    return this.events.length - this.head;
  }
}

/**
 * Stream positions without Kafka: microseconds since the epoch, or one more than the last when
 * several fall in one microsecond tick. They only grow, across restarts too (while the clock does).
 */
export function clockSeq(): () => number {
  let last = 0;
  return () => (last = Math.max(last + 1, Date.now() * 1000));
}
