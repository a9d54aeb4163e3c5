import type { Logger } from '../log.js';
import type { EventSink } from '../ports.js';
import { resultOf } from '../scan-service/result.js';
import type { ScanService } from '../scan-service/service.js';
import type { Target } from '../scanning/types.js';
import { parseLine } from './lines.js';
import { resultLineLimit } from './result-messages.js';
import { boundedResult } from './result-trim.js';
import { progressData } from './view.js';
import { FINAL_STATES, type Chunk, type ChunkQueue, type ChunkResults, type Job, type JobStore, type ResultKind } from './types.js';

export interface ChunkRunnerDeps {
  store: JobStore;
  queue: () => ChunkQueue;
  scans: Pick<ScanService, 'scanMany'>;
  events: EventSink;
  instanceId: string;
  progressIntervalMs: () => number;
  /** jobs.chunk_max_bytes: one result line is kept within what one results message can carry. */
  chunkMaxBytes: () => number;
  log: Logger;
}

/**
 * Scans one chunk, the same way on every instance and with or without Kafka: skip it if the job
 * is cancelled or gone, parse its lines (a bad line becomes an error result), scan the rest
 * through the scan service (records and threat events as for /v1/scan/batch), write the results
 * to the results topic and the store (one write each per chunk), and raise scan_job_progress
 * (at most once per interval per job, plus once when the job completes). The queue commits the
 * chunk only after this resolves.
 */
export class ChunkRunner {
  constructor(private readonly deps: ChunkRunnerDeps) {}

  /** Returns what happened, for metrics and tests: scanned, or skipped (cancelled, gone). */
  async run(chunk: Chunk): Promise<'scanned' | 'skipped'> {
    const { store } = this.deps;
    const job = await store.get(chunk.job);
    if (!job || FINAL_STATES.has(job.state)) return 'skipped';
    if (job.state === 'queued') await store.transition(job.id, 'running');

    const parsed = chunk.lines.map((line, i) => parseLine(line, chunk.start + i, chunk.source));
    const valid: number[] = [];
    const subjects: { text: string; target: Target }[] = [];
    parsed.forEach((p, i) => {
      if ('text' in p) {
        valid.push(i);
        subjects.push({ text: p.text, target: p.target });
      }
    });
    const who = { requestId: `${job.id}/${chunk.chunk}`, caller: job.caller };
    const out: ChunkResults = { chunk: chunk.chunk, start: chunk.start, lines: new Array(parsed.length), flagged: 0, blocked: 0, errors: 0 };
    // Each line is `{"index", "id", <the /v1/scan/batch fields>, "instance_id", "chunk"}`, written
    // as one string from the fields' JSON (no per-document object to copy them into).
    const tail = `,"instance_id":${JSON.stringify(this.deps.instanceId)},"chunk":${chunk.chunk}}`;
    const limit = resultLineLimit(job.id, this.deps.instanceId, this.deps.chunkMaxBytes());
    let trimmed = 0;
    const put = (i: number, kind: ResultKind, body: Record<string, unknown>) => {
      const render = (b: Record<string, unknown>) => {
        const json = JSON.stringify(b);
        return `{"index":${chunk.start + i},"id":${JSON.stringify(parsed[i]!.id)}${json.length > 2 ? ',' : ''}${json.slice(1, -1)}${tail}`;
      };
      const bounded = boundedResult(body, render, limit);
      out.lines[i] = bounded.line;
      if (bounded.trimmed) trimmed++;
      if (bounded.failed) kind = 'error';
      if (kind === 'flag') out.flagged++;
      else if (kind === 'block') out.blocked++;
      else if (kind === 'error') out.errors++;
    };
    try {
      const records = await this.deps.scans.scanMany(subjects, who);
      valid.forEach((i, k) => put(i, records[k]!.verdict, resultOf(records[k]!)));
    } catch {
      // One document the pool refused fails the whole scanMany: scan them one by one so only it gets the error.
      await Promise.all(valid.map(async (i, k) => {
        try {
          const [r] = await this.deps.scans.scanMany([subjects[k]!], who);
          put(i, r!.verdict, resultOf(r!));
        } catch (err) {
          put(i, 'error', { error: { message: `the scan failed: ${(err as Error).message}`, type: 'api_error', code: 'scan_failed', param: null } });
        }
      }));
    }
    parsed.forEach((p, i) => {
      if ('error' in p) put(i, 'error', { error: { ...p.error, type: 'invalid_request_error' } });
    });

    if (trimmed) this.deps.log.info({ job: job.id, chunk: chunk.chunk, trimmed, limit_bytes: limit }, 'scan job results trimmed to fit one results message (jobs.chunk_max_bytes)');

    // Both written (in parallel) before this resolves and the queue commits the chunk; if either
    // fails the chunk comes again, and the store keeps the results it already has.
    const [, outcome] = await Promise.all([this.deps.queue().publishResults(job.id, chunk.chunk, chunk.start, out.lines), store.putResults(job.id, out)]);
    if (outcome.job) await this.progress(outcome.job, outcome.completed);
    return 'scanned';
  }

  /** Raises scan_job_progress: always for a state change, else at most once per interval per job. */
  async progress(job: Job, force: boolean): Promise<void> {
    if (!force && !(await this.deps.store.progressSlot(job.id, this.deps.progressIntervalMs()))) return;
    this.deps.events.emit('scan_job_progress', progressData(job), job.id);
  }
}
