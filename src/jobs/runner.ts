import type { Logger } from '../log.js';
import type { EventSink } from '../ports.js';
import { resultOf } from '../scan-service/result.js';
import type { ScanService } from '../scan-service/service.js';
import { parseLine } from './lines.js';
import { progressData } from './view.js';
import { FINAL_STATES, type Chunk, type ChunkQueue, type Job, type JobStore, type ResultKind, type StoredResult } from './types.js';

export interface ChunkRunnerDeps {
  store: JobStore;
  queue: () => ChunkQueue;
  scans: Pick<ScanService, 'scanMany'>;
  events: EventSink;
  instanceId: string;
  progressIntervalMs: () => number;
  log: Logger;
}

/**
 * Scans one chunk, the same way on every instance and with or without Kafka: skip it if the job
 * is cancelled or gone, parse its lines (a bad line becomes an error result), scan the rest
 * through the scan service (records and threat events as for /v1/scan/batch), write the results
 * to the results topic and the store, and raise scan_job_progress (at most once per interval
 * per job, plus once when the job completes). The queue commits the chunk only after this resolves.
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
    const valid = parsed.flatMap((p, i) => ('text' in p ? [{ i, p }] : []));
    const who = { requestId: `${job.id}/${chunk.chunk}`, caller: job.caller };
    const lines: StoredResult[] = new Array(parsed.length);
    const put = (i: number, kind: ResultKind, body: Record<string, unknown>) => {
      lines[i] = { index: chunk.start + i, kind, line: JSON.stringify({ index: chunk.start + i, id: parsed[i]!.id, ...body, instance_id: this.deps.instanceId, chunk: chunk.chunk }) };
    };
    try {
      const records = await this.deps.scans.scanMany(valid.map(({ p }) => ({ text: (p as { text: string }).text, target: (p as { target: Chunk['source'] }).target })), who);
      valid.forEach(({ i }, k) => put(i, records[k]!.verdict, resultOf(records[k]!)));
    } catch {
      // One document the pool refused fails the whole scanMany: scan them one by one so only it gets the error.
      await Promise.all(valid.map(async ({ i, p }) => {
        try {
          const [r] = await this.deps.scans.scanMany([{ text: (p as { text: string }).text, target: (p as { target: Chunk['source'] }).target }], who);
          put(i, r!.verdict, resultOf(r!));
        } catch (err) {
          put(i, 'error', { error: { message: `the scan failed: ${(err as Error).message}`, type: 'api_error', code: 'scan_failed', param: null } });
        }
      }));
    }
    parsed.forEach((p, i) => {
      if ('error' in p) put(i, 'error', { error: { ...p.error, type: 'invalid_request_error' } });
    });

    await this.deps.queue().publishResults(job.id, chunk.chunk, lines.map((l) => l.line));
    const outcome = await store.putResults(job.id, lines);
    if (outcome.job) await this.progress(outcome.job, outcome.completed);
    return 'scanned';
  }

  /** Raises scan_job_progress: always for a state change, else at most once per interval per job. */
  async progress(job: Job, force: boolean): Promise<void> {
    if (!force && !(await this.deps.store.progressSlot(job.id, this.deps.progressIntervalMs()))) return;
    this.deps.events.emit('scan_job_progress', progressData(job), job.id);
  }
}
