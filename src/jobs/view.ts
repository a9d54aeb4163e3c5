import type { Job } from './types.js';

/** What GET /v1/scan/jobs/{id} answers (and scan_job_progress carries): the job, its counts, its rate and the time left. */
export function jobView(job: Job, now = Date.now()): Record<string, unknown> {
  const { total, scanned } = job.counts;
  const started = job.started_at ? Date.parse(job.started_at) : null;
  const end = job.finished_at ? Date.parse(job.finished_at) : now;
  const seconds = started !== null ? Math.max(0.001, (end - started) / 1000) : null;
  const rate = seconds !== null && scanned > 0 ? scanned / seconds : null;
  let eta: number | null = null;
  if (job.state === 'done' || job.state === 'cancelled' || job.state === 'failed') eta = 0;
  else if (rate && total !== null) eta = Math.round(((total - scanned) / rate) * 10) / 10;
  return {
    id: job.id,
    object: 'scan_job',
    state: job.state,
    source: job.source,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    counts: { ...job.counts },
    chunks: job.chunks,
    chunk_size: job.chunk_size,
    docs_per_second: rate === null ? null : Math.round(rate * 10) / 10,
    eta_seconds: eta,
    accepted_by: job.accepted_by,
    error: job.error,
    results_url: `/v1/scan/jobs/${job.id}/results`,
  };
}

/** The data of a scan_job_progress event. */
export function progressData(job: Job): Record<string, unknown> {
  const v = jobView(job);
  return { job_id: job.id, state: job.state, ...job.counts, docs_per_second: v.docs_per_second, eta_seconds: v.eta_seconds };
}
