import { WardenError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Target } from '../scanning/types.js';
import { newId } from '../util/ids.js';
import type { ChunkRunner } from './runner.js';
import { FINAL_STATES, type Chunk, type ChunkQueue, type Job, type JobStore } from './types.js';

export interface JobLimits {
  chunkSize: number;
  chunkMaxBytes: number;
  maxDocuments: number;
}

/** Room kept in a chunk for its header line (encodeChunk: job id, numbers, source: about 100 bytes). */
export const CHUNK_HEADER_BYTES = 256;
/** Chunks handed to the queue per send while an upload is read. */
const PUBLISH_BATCH = 8;
/** Results read from the store at a time: many chunks' worth, so a page rereads at most one chunk it only partly needs. */
const RESULTS_PAGE = 4096;

/**
 * Scan jobs: accepts one (cutting its lines into chunks as they are read and queueing them),
 * reports it, serves its results in input order, cancels it. The chunks are scanned by
 * ChunkRunner on whichever instance the queue gives them to.
 */
export class JobService {
  constructor(
    private readonly deps: {
      store: JobStore;
      queue: () => ChunkQueue;
      runner: ChunkRunner;
      limits: () => JobLimits;
      instanceId: string;
      log: Logger;
    },
  ) {}

  get store(): JobStore {
    return this.deps.store;
  }

  /**
   * Reads the documents and queues them. Throws 413 (over jobs.max_documents, the job is marked
   * failed so no instance scans what was already queued), 400 for an empty job, and 503 when
   * the queue (Kafka) cannot take the chunks.
   */
  async submit(lines: AsyncIterable<string[]>, opts: { source: Target; caller: string | null }): Promise<Job> {
    const { chunkSize, chunkMaxBytes, maxDocuments } = this.deps.limits();
    const job: Job = {
      id: newId('job'),
      state: 'queued',
      source: opts.source,
      created_at: new Date().toISOString(),
      started_at: null,
      finished_at: null,
      chunks: 0,
      chunk_size: chunkSize,
      accepted_by: this.deps.instanceId,
      caller: opts.caller,
      error: null,
      counts: { total: null, scanned: 0, flagged: 0, blocked: 0, errors: 0 },
    };
    await this.deps.store.create(job);
    const queue = this.deps.queue();
    // What the lines of one chunk may take: chunk_max_bytes less room for the chunk's header line.
    const lineMax = chunkMaxBytes - CHUNK_HEADER_BYTES;
    let index = 0;
    let chunkNo = 0;
    let current: string[] = [];
    let currentBytes = 0;
    let start = 0;
    let pending: Chunk[] = [];
    const cut = () => {
      if (current.length === 0) return;
      pending.push({ job: job.id, chunk: chunkNo++, start, source: opts.source, lines: current });
      start = index;
      current = [];
      currentBytes = 0;
    };
    const send = async () => {
      if (pending.length === 0) return;
      const batch = pending;
      pending = [];
      await queue.publish(batch);
      await this.deps.store.setChunks(job.id, chunkNo, null);
    };
    try {
      for await (const batch of lines) for (const raw of batch) {
        if (index >= maxDocuments) {
          throw new WardenError(413, 'request_too_large', `The job has more than ${maxDocuments} documents; the limit is ${maxDocuments} (jobs.max_documents).`, { code: 'job_too_large', param: 'jobs.max_documents' });
        }
        // A line too big for one queue message is replaced by a marker that becomes its error result.
        let line = raw;
        // Its newline counted too: the chunk message is the header and the lines joined by newlines.
        let bytes = Buffer.byteLength(raw) + 1;
        if (bytes > lineMax) {
          line = JSON.stringify({ $too_long: bytes - 1, $limit: lineMax - 1 });
          bytes = line.length + 1;
        }
        if (current.length > 0 && (current.length >= chunkSize || currentBytes + bytes > lineMax)) cut();
        current.push(line);
        currentBytes += bytes;
        index++;
        if (pending.length >= PUBLISH_BATCH) await send();
      }
      if (index === 0) throw new WardenError(400, 'invalid_request_error', 'The job has no documents: send one JSON object per line, like {"id": "doc-1", "input": "text"}.', { code: 'empty_job' });
      cut();
      await send();
    } catch (err) {
      await this.deps.store.transition(job.id, 'failed', { error: `refused at submission: ${(err as Error).message}` }).catch(() => undefined);
      throw err;
    }
    const done = await this.deps.store.setChunks(job.id, chunkNo, index);
    this.deps.log.info({ job: job.id, documents: index, chunks: chunkNo, queue: queue.name }, 'scan job accepted');
    return done ?? job;
  }

  /**
   * After a restart on a store only this instance uses (SQLite): a job whose upload was still
   * being read when the instance stopped can never learn its total, so it fails, saying so.
   */
  async failCutUploads(): Promise<void> {
    for (const job of await this.deps.store.list(Number.MAX_SAFE_INTEGER)) {
      if (FINAL_STATES.has(job.state) || job.counts.total !== null) continue;
      await this.deps.store.transition(job.id, 'failed', { error: 'the instance stopped while the upload was being read, so the job never received all its documents; submit it again' });
      this.deps.log.warn({ job: job.id }, 'failed a scan job whose upload the last stop cut short');
    }
  }

  async get(id: string): Promise<Job> {
    const job = await this.deps.store.get(id);
    if (!job) throw new WardenError(404, 'not_found_error', `No scan job ${JSON.stringify(id)} (it never existed or has expired).`, { code: 'job_not_found' });
    return job;
  }

  list(limit: number): Promise<Job[]> {
    return this.deps.store.list(limit);
  }

  /** Cancels a queued or running job: every instance skips its remaining chunks. A finished job is a 409. */
  async cancel(id: string): Promise<Job> {
    const job = await this.get(id);
    if (job.state === 'done' || job.state === 'failed') {
      throw new WardenError(409, 'invalid_request_error', `Scan job ${id} is already ${job.state}; only a queued or running job can be cancelled.`, { code: 'job_finished' });
    }
    const { job: after, moved } = await this.deps.store.transition(id, 'cancelled');
    if (moved && after) await this.deps.runner.progress(after, true);
    return after ?? job;
  }

  /**
   * The results in input order from `cursor` (an input index): one line per document, a page
   * of them at a time. While the job runs this stops at the first document without a result yet
   * (resume from the last `index` + 1); a cancelled job's unscanned documents are left out.
   */
  async *results(id: string, cursor: number, limit: number): AsyncGenerator<string[]> {
    const job = await this.get(id);
    const complete = job.state === 'done';
    const end = job.counts.total ?? job.chunks * job.chunk_size;
    const skipMissing = FINAL_STATES.has(job.state) && !complete;
    let sent = 0;
    for (let from = cursor; from < end && sent < limit; ) {
      // Skipping the documents never scanned, a page may hold fewer lines than indices: read whole pages then.
      const page = await this.deps.store.getResults(id, from, Math.min(RESULTS_PAGE, end - from, skipMissing ? RESULTS_PAGE : limit - sent));
      from += page.length;
      const gap = page.indexOf(null);
      if (gap >= 0 && !skipMissing) {
        if (gap > 0) yield page.slice(0, gap) as string[];
        return;
      }
      const lines = ((gap >= 0 ? page.filter((line) => line !== null) : page) as string[]).slice(0, limit - sent);
      if (lines.length) yield lines;
      sent += lines.length;
    }
  }

}
