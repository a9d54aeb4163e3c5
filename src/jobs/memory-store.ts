import { addCounts, completeIfDone, move } from './state.js';
import { FINAL_STATES, type ChunkResults, type Job, type JobState, type JobStore, type PutOutcome } from './types.js';

interface Entry {
  job: Job;
  /** Result line by input index. */
  results: Map<number, string>;
  /** Chunks whose results are in. */
  chunks: Set<number>;
  lastProgress: number;
}

/** Jobs of one instance, in this process (the embedded default; gone at exit). */
export class MemoryJobStore implements JobStore {
  readonly backend = 'memory' as const;
  private readonly jobs = new Map<string, Entry>();

  constructor(private readonly maxJobs = 1000) {}

  async create(job: Job): Promise<void> {
    this.jobs.set(job.id, { job: structuredClone(job), results: new Map(), chunks: new Set(), lastProgress: 0 });
    // Oldest finished jobs go first when over the bound.
    if (this.jobs.size > this.maxJobs) {
      for (const [id, e] of this.jobs) {
        if (this.jobs.size <= this.maxJobs) break;
        if (FINAL_STATES.has(e.job.state)) this.jobs.delete(id);
      }
    }
  }

  async get(id: string): Promise<Job | null> {
    const e = this.jobs.get(id);
    return e ? structuredClone(e.job) : null;
  }

  async list(limit: number): Promise<Job[]> {
    return [...this.jobs.values()].map((e) => structuredClone(e.job)).sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1)).slice(0, limit);
  }

  async setChunks(id: string, chunks: number, total: number | null): Promise<Job | null> {
    const e = this.jobs.get(id);
    if (!e) return null;
    e.job.chunks = chunks;
    if (total !== null) {
      e.job.counts.total = total;
      completeIfDone(e.job);
    }
    return structuredClone(e.job);
  }

  async transition(id: string, to: JobState, detail: { error?: string } = {}): Promise<{ job: Job | null; moved: boolean }> {
    const e = this.jobs.get(id);
    if (!e) return { job: null, moved: false };
    const moved = move(e.job, to, detail.error);
    return { job: structuredClone(e.job), moved };
  }

  async putResults(id: string, r: ChunkResults): Promise<PutOutcome> {
    const e = this.jobs.get(id);
    if (!e) return { added: 0, job: null, completed: false };
    if (e.chunks.has(r.chunk)) return { added: 0, job: structuredClone(e.job), completed: false };
    e.chunks.add(r.chunk);
    r.lines.forEach((line, i) => e.results.set(r.start + i, line));
    addCounts(e.job, r);
    const completed = completeIfDone(e.job);
    return { added: r.lines.length, job: structuredClone(e.job), completed };
  }

  async getResults(id: string, from: number, count: number): Promise<(string | null)[]> {
    const e = this.jobs.get(id);
    const out: (string | null)[] = [];
    for (let i = from; i < from + count; i++) out.push(e?.results.get(i) ?? null);
    return out;
  }

  async progressSlot(id: string, intervalMs: number): Promise<boolean> {
    const e = this.jobs.get(id);
    if (!e) return false;
    const now = Date.now();
    if (now - e.lastProgress < intervalMs) return false;
    e.lastProgress = now;
    return true;
  }

  async close(): Promise<void> {}
}
