import type { RateLimitDecision, RateLimitStore } from './types.js';

/** Sliding-window log per key, in this process only. */
export class MemoryRateLimitStore implements RateLimitStore {
  readonly backend = 'memory' as const;
  private readonly hits = new Map<string, number[]>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {
    // Drop keys whose hits have all left their window, so idle credentials cost nothing.
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async consume(key: string, limit: number, windowMs: number): Promise<RateLimitDecision> {
    const now = this.now();
    const log = this.prune(key, now, windowMs);
    const allowed = log.length < limit;
    if (allowed) log.push(now);
    this.hits.set(key, log);
    const resetMs = log.length ? log[0]! + windowMs - now : windowMs;
    return { allowed, limit, remaining: Math.max(0, limit - log.length), resetMs };
  }

  async count(key: string, windowMs: number): Promise<number> {
    return this.prune(key, this.now(), windowMs).length;
  }

  async reset(key: string): Promise<void> {
    this.hits.delete(key);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private prune(key: string, now: number, windowMs: number): number[] {
    const log = this.hits.get(key) ?? [];
    let drop = 0;
    while (drop < log.length && log[drop]! <= now - windowMs) drop++;
    if (drop) log.splice(0, drop);
    return log;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, log] of this.hits) if (!log.length || log[log.length - 1]! < now - 3_600_000) this.hits.delete(key);
  }
}
