import { FINAL_STATES, type ChunkResults, type Job, type JobState } from './types.js';

/**
 * The state rules the memory and SQLite job stores apply to a job (the Redis store's scripts
 * repeat them in Lua): a final state is never left; started/finished times are stamped once.
 */
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

/** Adds a chunk's results to the job's counts (only for the first write of that chunk). */
export function addCounts(job: Job, r: ChunkResults): void {
  const c = job.counts;
  c.scanned += r.lines.length;
  c.flagged += r.flagged;
  c.blocked += r.blocked;
  c.errors += r.errors;
}

/** Marks the job done once every document has a result; true when this call did. */
export function completeIfDone(job: Job): boolean {
  const { total, scanned } = job.counts;
  if (total === null || scanned < total) return false;
  return move(job, 'done');
}
