import type Database from 'better-sqlite3';
import { splitLines } from '../../jobs/chunk-codec.js';
import type { Chunk, ChunkSpool, JobStore } from '../../jobs/types.js';
import type { Logger } from '../../log.js';
import { TARGETS } from '../../scanning/types.js';
import type { SqliteDb } from './database.js';
import type { WriteQueue } from './writer.js';

type Statement = Database.Statement<unknown[]>;

interface ChunkRow {
  job: string;
  chunk: number;
  start: number;
  source: string;
  count: number;
  lines: string;
}

/**
 * The embedded queue's chunks in SQLite (`scan_job_chunks`; migration 3): saved before the
 * upload's 202, dropped once their results are written, read back when the instance starts
 * again. A row that does not read back as a chunk fails its job with the reason (its documents
 * cannot be scanned, so the job could never finish) and is dropped.
 */
export class SqliteChunkSpool implements ChunkSpool {
  private readonly insert: Statement;
  private readonly remove: Statement;
  private readonly all: Statement;

  constructor(
    db: SqliteDb,
    private readonly writer: WriteQueue,
    private readonly jobs: Pick<JobStore, 'transition'>,
    private readonly log: Logger,
  ) {
    this.insert = db.prepare('INSERT OR REPLACE INTO scan_job_chunks (job, chunk, start, source, count, lines) VALUES (?, ?, ?, ?, ?, ?)');
    this.remove = db.prepare('DELETE FROM scan_job_chunks WHERE job = ? AND chunk = ?');
    this.all = db.prepare('SELECT job, chunk, start, source, count, lines FROM scan_job_chunks ORDER BY job, chunk');
  }

  async save(chunks: Chunk[]): Promise<void> {
    await this.writer.enqueue('jobs', () => {
      for (const c of chunks) this.insert.run(c.job, c.chunk, c.start, c.source, c.lines.length, c.lines.join('\n'));
    });
  }

  async done(job: string, chunk: number): Promise<void> {
    await this.writer.enqueue('jobs', () => this.remove.run(job, chunk));
  }

  async unfinished(): Promise<Chunk[]> {
    const out: Chunk[] = [];
    for (const row of this.all.all() as ChunkRow[]) {
      try {
        out.push(chunkOf(row));
      } catch (err) {
        const reason = `chunk ${row.chunk} (documents from index ${row.start}) could not be read back from the database after a restart: ${(err as Error).message}`;
        this.log.error({ job: row.job, chunk: row.chunk, err: (err as Error).message }, 'a saved scan job chunk is damaged; failing its job');
        await this.jobs.transition(row.job, 'failed', { error: `${reason}; submit the job again` }).catch((e: unknown) => {
          this.log.error({ job: row.job, err: (e as Error).message }, 'could not mark the job failed');
        });
        await this.done(row.job, row.chunk);
      }
    }
    return out;
  }
}

function chunkOf(row: ChunkRow): Chunk {
  if (!(TARGETS as readonly string[]).includes(row.source)) throw new Error(`source ${JSON.stringify(row.source)} is not one of ${TARGETS.join(', ')}`);
  if (!Number.isSafeInteger(row.start) || row.start < 0 || !Number.isSafeInteger(row.count) || row.count < 1) throw new Error(`start ${JSON.stringify(row.start)} or count ${JSON.stringify(row.count)} is not a count`);
  if (typeof row.lines !== 'string') throw new Error('its documents are not text');
  return { job: row.job, chunk: row.chunk, start: row.start, source: row.source as Chunk['source'], lines: splitLines(row.lines, row.count) };
}
