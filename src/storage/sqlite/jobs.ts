import type Database from 'better-sqlite3';
import { WardenError } from '../../errors.js';
import { splitLines } from '../../jobs/chunk-codec.js';
import { addCounts, completeIfDone, move } from '../../jobs/state.js';
import { JOB_STATES, type ChunkResults, type Job, type JobCounts, type JobState, type JobStore, type PutOutcome } from '../../jobs/types.js';
import type { Logger } from '../../log.js';
import { TARGETS, type Target } from '../../scanning/types.js';
import type { SqliteDb } from './database.js';
import type { WriteQueue } from './writer.js';

type Statement = Database.Statement<unknown[]>;

/** A `scan_jobs` row: the job with its counts as columns; state and source as read, unchecked. */
type JobRow = Omit<Job, 'state' | 'source' | 'counts'> & JobCounts & { state: string; source: string };

interface ResultRow {
  chunk: number;
  start: number;
  count: number;
  lines: string;
}

const COLUMNS = 'id, state, source, created_at, started_at, finished_at, chunks, chunk_size, accepted_by, caller, error, total, scanned, flagged, blocked, errors';

/**
 * Scan jobs of one instance in SQLite (`scan_jobs`, `scan_job_results`; migration 3): a job, its
 * finished results and its counters outlive the process, so a restarted instance still answers
 * GET /v1/scan/jobs/{id} and /results. Every change goes through the batched writer and is
 * applied to the job read inside the same transaction with the rules the memory store follows
 * (src/jobs/state.ts); results are one row per (job, chunk) and the first write of a chunk wins.
 * A row that does not read as a job (a damaged file, a hand edit) is a 500 naming the job and the
 * field, never a wrong answer (and is left out of lists). Expired jobs are deleted by `prune`, run with the other stores'.
 */
export class SqliteJobStore implements JobStore {
  readonly backend = 'sqlite' as const;
  private readonly lastProgress = new Map<string, number>();
  private readonly insert: Statement;
  private readonly byId: Statement;
  private readonly newest: Statement;
  private readonly update: Statement;
  private readonly insertResults: Statement;
  private readonly resultAtOrBefore: Statement;
  private readonly resultsInside: Statement;
  private readonly expireResults: Statement;
  private readonly expireChunks: Statement;
  private readonly expireJobs: Statement;

  constructor(
    db: SqliteDb,
    private readonly writer: WriteQueue,
    private readonly file: string,
    private readonly ttlSeconds: number,
    private readonly log: Logger,
  ) {
    this.insert = db.prepare(`INSERT INTO scan_jobs (${COLUMNS}, expires_at) VALUES (@id, @state, @source, @created_at, @started_at, @finished_at, @chunks, @chunk_size, @accepted_by, @caller, @error, @total, @scanned, @flagged, @blocked, @errors, @expires_at)`);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM scan_jobs WHERE id = ? AND expires_at >= ?`);
    this.newest = db.prepare(`SELECT ${COLUMNS} FROM scan_jobs WHERE expires_at >= ? ORDER BY created_at DESC, id DESC LIMIT ?`);
    this.update = db.prepare(
      'UPDATE scan_jobs SET state = @state, started_at = @started_at, finished_at = @finished_at, chunks = @chunks, error = @error, total = @total, scanned = @scanned, flagged = @flagged, blocked = @blocked, errors = @errors, expires_at = @expires_at WHERE id = @id',
    );
    this.insertResults = db.prepare('INSERT OR IGNORE INTO scan_job_results (job, chunk, start, count, lines) VALUES (?, ?, ?, ?, ?)');
    this.resultAtOrBefore = db.prepare('SELECT chunk, start, count, lines FROM scan_job_results WHERE job = ? AND start <= ? ORDER BY start DESC LIMIT 1');
    this.resultsInside = db.prepare('SELECT chunk, start, count, lines FROM scan_job_results WHERE job = ? AND start > ? AND start < ? ORDER BY start');
    this.expireResults = db.prepare('DELETE FROM scan_job_results WHERE job IN (SELECT id FROM scan_jobs WHERE expires_at < ?)');
    this.expireChunks = db.prepare('DELETE FROM scan_job_chunks WHERE job IN (SELECT id FROM scan_jobs WHERE expires_at < ?)');
    this.expireJobs = db.prepare('DELETE FROM scan_jobs WHERE expires_at < ?');
  }

  async create(job: Job): Promise<void> {
    const row = { ...rowOf(job), expires_at: this.expiry() };
    await this.writer.enqueue('jobs', () => this.insert.run(row));
  }

  async get(id: string): Promise<Job | null> {
    const row = this.byId.get(id, Date.now()) as JobRow | undefined;
    return row ? this.jobOf(row) : null;
  }

  /** A damaged job is left out of the list (and logged): GET of that job says what is wrong with it. */
  async list(limit: number): Promise<Job[]> {
    const out: Job[] = [];
    for (const row of this.newest.all(Date.now(), limit) as JobRow[]) {
      try {
        out.push(this.jobOf(row));
      } catch (err) {
        this.log.warn({ job: row.id, err: (err as Error).message }, 'left a damaged scan job out of the list');
      }
    }
    return out;
  }

  async setChunks(id: string, chunks: number, total: number | null): Promise<Job | null> {
    return this.change(id, (job) => {
      job.chunks = chunks;
      if (total !== null) {
        job.counts.total = total;
        completeIfDone(job);
      }
    });
  }

  async transition(id: string, to: JobState, detail: { error?: string } = {}): Promise<{ job: Job | null; moved: boolean }> {
    let moved = false;
    const job = await this.change(id, (j) => {
      moved = move(j, to, detail.error);
    });
    return { job, moved };
  }

  async putResults(id: string, r: ChunkResults): Promise<PutOutcome> {
    let added = 0;
    let completed = false;
    const job = await this.change(id, (j) => {
      added = 0;
      completed = false;
      if (this.insertResults.run(id, r.chunk, r.start, r.lines.length, r.lines.join('\n')).changes === 0) return;
      added = r.lines.length;
      addCounts(j, r);
      completed = completeIfDone(j);
    });
    return { added: job ? added : 0, job, completed: job ? completed : false };
  }

  async getResults(id: string, from: number, count: number): Promise<(string | null)[]> {
    const out: (string | null)[] = new Array(Math.max(0, count)).fill(null);
    if (count <= 0) return out;
    const rows = [this.resultAtOrBefore.get(id, from) as ResultRow | undefined, ...(this.resultsInside.all(id, from, from + count) as ResultRow[])];
    for (const row of rows) {
      if (!row) continue;
      let lines: string[];
      try {
        lines = splitLines(row.lines, row.count);
      } catch (err) {
        throw this.damaged(id, `the results of chunk ${row.chunk} cannot be read: ${(err as Error).message}`);
      }
      for (let k = Math.max(0, from - row.start); k < lines.length && row.start + k < from + count; k++) out[row.start + k - from] = lines[k]!;
    }
    return out;
  }

  async progressSlot(id: string, intervalMs: number): Promise<boolean> {
    const now = Date.now();
    if (now - (this.lastProgress.get(id) ?? 0) < intervalMs) return false;
    this.lastProgress.set(id, now);
    return true;
  }

  async close(): Promise<void> {}

  /** Deletes jobs past their expiry with their results and unfinished chunks. */
  prune(now: number): void {
    this.writer.now('jobs', () => {
      this.expireResults.run(now);
      this.expireChunks.run(now);
      this.expireJobs.run(now);
    });
    for (const [id, at] of this.lastProgress) if (now - at > 60_000) this.lastProgress.delete(id);
  }

  /**
   * Reads the job inside the write transaction, applies `apply` and writes it back (with a new
   * expiry). Null when there is no such job; a row that is not a job is refused before anything
   * is written (the writer would otherwise report the file as failing).
   */
  private async change(id: string, apply: (job: Job) => void): Promise<Job | null> {
    let out: Job | null = null;
    let refused: WardenError | null = null;
    await this.writer.enqueue('jobs', () => {
      out = null;
      refused = null;
      const row = this.byId.get(id, Date.now()) as JobRow | undefined;
      if (!row) return;
      let job: Job;
      try {
        job = this.jobOf(row);
      } catch (err) {
        if (!(err instanceof WardenError)) throw err;
        refused = err;
        return;
      }
      apply(job);
      this.update.run({ ...rowOf(job), expires_at: this.expiry() });
      out = job;
    });
    if (refused) throw refused;
    return out;
  }

  private expiry(): number {
    return Date.now() + this.ttlSeconds * 1000;
  }

  /** A row as a job, checking every field a job's readers rely on. */
  private jobOf(row: JobRow): Job {
    const bad = (what: string) => this.damaged(row.id, what);
    if (!(JOB_STATES as readonly string[]).includes(row.state)) throw bad(`state ${JSON.stringify(row.state)} is not one of ${JOB_STATES.join(', ')}`);
    if (!(TARGETS as readonly string[]).includes(row.source)) throw bad(`source ${JSON.stringify(row.source)} is not one of ${TARGETS.join(', ')}`);
    for (const f of ['chunks', 'chunk_size', 'scanned', 'flagged', 'blocked', 'errors'] as const) {
      if (!Number.isSafeInteger(row[f]) || row[f] < 0) throw bad(`${f} ${JSON.stringify(row[f])} is not a count`);
    }
    if (row.total !== null && (!Number.isSafeInteger(row.total) || row.total < 0)) throw bad(`total ${JSON.stringify(row.total)} is not a count`);
    if (typeof row.created_at !== 'string' || Number.isNaN(Date.parse(row.created_at))) throw bad(`created_at ${JSON.stringify(row.created_at)} is not a time`);
    const { total, scanned, flagged, blocked, errors, ...rest } = row;
    return { ...rest, state: row.state as JobState, source: row.source as Target, counts: { total, scanned, flagged, blocked, errors } };
  }

  private damaged(id: string, what: string): WardenError {
    return new WardenError(500, 'api_error', `Scan job ${id} is damaged in the database ${this.file}: ${what}. It cannot be read or changed; restore the file from a backup, or wait for the job to expire (jobs.ttl_hours).`, {
      code: 'job_damaged',
    });
  }
}

function rowOf(job: Job): JobRow {
  const { counts, ...rest } = job;
  return { ...rest, ...counts };
}
