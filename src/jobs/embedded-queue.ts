import type { Logger } from '../log.js';
import type { Chunk, ChunkHandler, ChunkQueue } from './types.js';

/**
 * The embedded default without Kafka: this instance works through its own jobs' chunks, a few at
 * a time (each chunk already spreads over the whole worker pool). A chunk whose handler fails is
 * tried again a little later, as Kafka would redeliver it. Chunks live in this process only: a
 * job does not outlive the instance here (docs/jobs.md).
 */
export class EmbeddedChunkQueue implements ChunkQueue {
  readonly name = 'embedded' as const;
  private handler: ChunkHandler | null = null;
  private readonly pending: Chunk[] = [];
  private running = 0;
  private stopping = false;
  private idle: (() => void)[] = [];

  constructor(private readonly concurrency: number, private readonly log: Logger, private readonly retryDelayMs = 1_000) {}

  async start(handler: ChunkHandler): Promise<void> {
    this.handler = handler;
    this.pump();
  }

  async publish(chunks: Chunk[]): Promise<void> {
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
        .catch((err: unknown) => {
          this.log.warn({ err: (err as Error).message, job: chunk.job, chunk: chunk.chunk }, 'scan job chunk failed; trying it again');
          setTimeout(() => { this.pending.push(chunk); this.pump(); }, this.retryDelayMs).unref();
        })
        .finally(() => {
          this.running--;
          if (this.running === 0) for (const res of this.idle.splice(0)) res();
          this.pump();
        });
    }
  }
}
