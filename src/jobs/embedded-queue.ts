import type { Logger } from '../log.js';
import type { Chunk, ChunkHandler, ChunkQueue, ChunkSpool } from './types.js';

/**
 * The embedded default without Kafka: this instance works through its own jobs' chunks, a few at
 * a time (each chunk already spreads over the whole worker pool). A chunk whose handler fails is
 * tried again a little later, as Kafka would redeliver it. With a spool (SQLite) every chunk is
 * saved before `publish` resolves and dropped once its results are written, so an instance
 * killed mid-job and started again on the same store finishes the chunks it had not; without
 * one (memory) the chunks live in this process only (docs/jobs.md).
 */
export class EmbeddedChunkQueue implements ChunkQueue {
  readonly name = 'embedded' as const;
  private handler: ChunkHandler | null = null;
  private readonly pending: Chunk[] = [];
  private running = 0;
  private stopping = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly log: Logger,
    private readonly opts: { spool?: ChunkSpool | null; retryDelayMs?: number } = {},
  ) {}

  async start(handler: ChunkHandler): Promise<void> {
    this.handler = handler;
    if (this.opts.spool) {
      const left = await this.opts.spool.unfinished();
      if (left.length) {
        this.log.info({ chunks: left.length, jobs: new Set(left.map((c) => c.job)).size }, 'resuming the scan job chunks left unfinished when this instance last stopped');
        this.pending.unshift(...left);
      }
    }
    this.pump();
  }

  async publish(chunks: Chunk[]): Promise<void> {
    await this.opts.spool?.save(chunks);
    this.pending.push(...chunks);
    this.pump();
  }

  async publishResults(): Promise<void> {}

  status(): { queue: 'embedded'; connected: boolean; in_flight: number } {
    return { queue: 'embedded', connected: true, in_flight: this.running + this.pending.length };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.running > 0) await new Promise<void>((res) => this.idle.push(res));
  }

  private pump(): void {
    while (this.handler && !this.stopping && this.running < this.concurrency && this.pending.length > 0) {
      const chunk = this.pending.shift()!;
      this.running++;
      this.handler(chunk)
        // Dropped from the spool only now: the results are written.
        .then(() => this.opts.spool?.done(chunk.job, chunk.chunk).catch((err: unknown) => {
          // Left in the spool: after a restart the chunk is scanned again and its results, already in, are kept.
          this.log.warn({ err: (err as Error).message, job: chunk.job, chunk: chunk.chunk }, 'could not drop a finished scan job chunk from the spool');
        }))
        .catch((err: unknown) => {
          this.log.warn({ err: (err as Error).message, job: chunk.job, chunk: chunk.chunk }, 'scan job chunk failed; trying it again');
          setTimeout(() => { this.pending.push(chunk); this.pump(); }, this.opts.retryDelayMs ?? 1_000).unref();
        })
        .finally(() => {
          this.running--;
          if (this.running === 0) for (const res of this.idle.splice(0)) res();
          this.pump();
        });
    }
  }
}
