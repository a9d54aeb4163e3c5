import { FINAL_STATES, type Job, type JobState, type JobStore, type PutOutcome, type StoredResult } from './types.js';

interface Entry {
  job: Job;
  results: Map<number, string>;
  lastProgress: number;
}

/** Jobs of one instance, in this process (the embedded default; gone at exit). */
export class MemoryJobStore implements JobStore {
  readonly backend = 'memory' as const;
  private readonly jobs = new Map<string, Entry>();

  constructor(private readonly maxJobs = 1000) {}

  async create(job: Job): Promise<void> {
    this.jobs.set(job.id, { job: structuredClone(job), results: new Map(), lastProgress: 0 });
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
      this.completeIfDone(e);
    }
    return structuredClone(e.job);
  }

  async transition(id: string, to: JobState, detail: { error?: string } = {}): Promise<{ job: Job | null; moved: boolean }> {
    const e = this.jobs.get(id);
    if (!e) return { job: null, moved: false };
    const moved = move(e.job, to, detail.error);
    return { job: structuredClone(e.job), moved };
  }

  async putResults(id: string, results: StoredResult[]): Promise<PutOutcome> {
    const e = this.jobs.get(id);
    if (!e) return { added: 0, job: null, completed: false };
    let added = 0;
    for (const r of results) {
      if (e.results.has(r.index)) continue;
      e.results.set(r.index, r.line);
      added++;
      const c = e.job.counts;
      c.scanned++;
      if (r.kind === 'flag') c.flagged++;
      else if (r.kind === 'block') c.blocked++;
      else if (r.kind === 'error') c.errors++;
    }
    const completed = this.completeIfDone(e);
    return { added, job: structuredClone(e.job), completed };
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

  private completeIfDone(e: Entry): boolean {
    const { total, scanned } = e.job.counts;
    if (total === null || scanned < total) return false;
    return move(e.job, 'done');
  }
}

/** The one state rule both stores follow: a final state is never left; started/finished times are stamped once. */
export function move(job: Job, to: JobState, error?: string): boolean {
  if (FINAL_STATES.has(job.state) || job.state === to) return false;
  const now = new Date().toISOString();
  job.state = to;
  if (to === 'running' && !job.started_at) job.started_at = now;
  if (FINAL_STATES.has(to)) {
    job.finished_at = now;
    if (!job.started_at) job.started_at = now;
  }
  if (error) job.error = error;
  return true;
}
