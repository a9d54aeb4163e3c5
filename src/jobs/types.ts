/**
 * Scan jobs: the shapes every part of src/jobs/ shares. A job is a list of documents (JSONL lines)
 * cut into chunks; a chunk goes through a ChunkQueue (Kafka's `scan-jobs` topic, or the embedded
 * in-process queue) to whichever instance takes it; that instance scans it and writes the chunk's
 * results, one line per document, into the JobStore, which keeps the first write per (job, chunk).
 * A chunk is a fixed range of input indices, given once at submission, so that is the first
 * result per (job, document).
 */
import type { Target } from '../scanning/types.js';

export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
export const JOB_STATES: readonly JobState[] = ['queued', 'running', 'done', 'failed', 'cancelled'];
export const FINAL_STATES: ReadonlySet<JobState> = new Set(['done', 'failed', 'cancelled']);

export interface JobCounts {
  /** null while the upload is still being read. */
  total: number | null;
  scanned: number;
  flagged: number;
  blocked: number;
  errors: number;
}

export interface Job {
  id: string;
  state: JobState;
  /** Default target of lines without their own `source`. */
  source: Target;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Chunks published so far (all of them once total is set). */
  chunks: number;
  chunk_size: number;
  /** Instance that accepted the upload. */
  accepted_by: string;
  caller: string | null;
  /** Why the job failed, when it did. */
  error: string | null;
  counts: JobCounts;
}

/** What goes on the queue: a slice of the job's lines, with the index of its first line. */
export interface Chunk {
  job: string;
  chunk: number;
  /** Input index (0-based line number among the job's documents) of lines[0]. */
  start: number;
  source: Target;
  lines: string[];
}

/** How a result counts: allowed, flagged, blocked, or an error (bad line, failed scan). */
export type ResultKind = 'allow' | 'flag' | 'block' | 'error';

/**
 * One chunk's results, as they are stored (one write per chunk, not per document): the NDJSON
 * line of each document (without its newline) for indices start, start + 1, …, and how many of
 * them count as flagged, blocked or errors (the rest are allowed).
 */
export interface ChunkResults {
  chunk: number;
  start: number;
  lines: string[];
  flagged: number;
  blocked: number;
  errors: number;
}

export interface PutOutcome {
  /** Results this call added (others were already there: a rescanned chunk). */
  added: number;
  job: Job | null;
  /** True for the one call whose results completed the job (state went running → done). */
  completed: boolean;
}

/**
 * Where jobs live: memory (one instance, gone at exit), SQLite (one instance, kept across
 * restarts) or Redis (every instance sees every job). Result writes are idempotent per
 * (job, chunk): the first wins and only it is counted.
 */
export interface JobStore {
  readonly backend: 'memory' | 'sqlite' | 'redis';
  create(job: Job): Promise<void>;
  get(id: string): Promise<Job | null>;
  /** Newest first. */
  list(limit: number): Promise<Job[]>;
  /** Records how many chunks were published so far, and the total once the upload is complete; completes an empty job. */
  setChunks(id: string, chunks: number, total: number | null): Promise<Job | null>;
  /** Moves to `to` unless the job is already in a final state; returns the job afterwards and whether it moved. */
  transition(id: string, to: JobState, detail?: { error?: string }): Promise<{ job: Job | null; moved: boolean }>;
  putResults(id: string, results: ChunkResults): Promise<PutOutcome>;
  /** Lines for indices [from, from + count), null where there is no result yet. */
  getResults(id: string, from: number, count: number): Promise<(string | null)[]>;
  /** True at most once per `intervalMs` per job, across every instance sharing the store. */
  progressSlot(id: string, intervalMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Where the embedded queue keeps the chunks it has not finished, so that an instance restarted on
 * the same store finishes its jobs (SQLite). Without one they live in this process only.
 */
export interface ChunkSpool {
  /** Resolves once the chunks are durable. */
  save(chunks: Chunk[]): Promise<void>;
  /** Drops a chunk once its results are written (or it was skipped). */
  done(job: string, chunk: number): Promise<void>;
  /**
   * The chunks saved and not done, in (job, chunk) order: what a restarted instance works
   * through. A row that cannot be read back fails its job (saying which chunk and why) and is
   * dropped.
   */
  unfinished(): Promise<Chunk[]>;
}

/** What processes a chunk: resolves once its results are written (then the chunk is committed). */
export type ChunkHandler = (chunk: Chunk) => Promise<void>;

/**
 * How chunks reach the instances. Kafka: a topic consumed by one group shared by every
 * instance; embedded: an in-process list this instance works through. `publish` resolves once
 * the chunks are durably queued, and throws a WardenError (503) when they cannot be.
 */
export interface ChunkQueue {
  readonly name: 'kafka' | 'embedded';
  start(handler: ChunkHandler): Promise<void>;
  publish(chunks: Chunk[]): Promise<void>;
  /** Publishes a scanned chunk's results (the results topic; `start` is the input index of lines[0]); resolves once written. */
  publishResults(job: string, chunk: number, start: number, lines: string[]): Promise<void>;
  status(): { queue: 'kafka' | 'embedded'; connected: boolean; in_flight: number };
  stop(): Promise<void>;
}
