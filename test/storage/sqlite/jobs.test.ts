import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { pino } from 'pino';
import { WardenError } from '../../../src/errors.js';
import { openDatabase } from '../../../src/storage/sqlite/database.js';
import { SqliteJobStore } from '../../../src/storage/sqlite/jobs.js';
import { WriteQueue } from '../../../src/storage/sqlite/writer.js';
import { chunkResults, jobStoreContract, newJob } from '../../support/job-store-contract.js';
import { freshDb } from '../../support/sqlite.js';

const silent = pino({ level: 'silent' });

async function refusal(p: Promise<unknown>): Promise<WardenError> {
  try {
    await p;
  } catch (err) {
    expect(err).to.be.instanceOf(WardenError);
    return err as WardenError;
  }
  throw new Error('expected a refusal');
}

describe('scan job store: SQLite', function () {
  jobStoreContract(async () => {
    const t = freshDb();
    return { store: new SqliteJobStore(t.opened.db, t.writer, t.file, 3600, silent), cleanup: async () => t.cleanup() };
  });

  it('keeps jobs and results in the file: a store opened again on it reads them back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-jobs-sqlite-'));
    const file = join(dir, 'warden.db');
    const sink = { failed: () => undefined, recovered: () => undefined };
    try {
      let opened = openDatabase(file, { role: 'server' });
      let store = new SqliteJobStore(opened.db, new WriteQueue(opened.db, file, sink), file, 3600, silent);
      const job = newJob();
      await store.create(job);
      await store.setChunks(job.id, 2, 4);
      await store.transition(job.id, 'running');
      await store.putResults(job.id, chunkResults(0, 0, ['flag', 'allow', 'error']));
      const before = await store.get(job.id);
      opened.close();

      opened = openDatabase(file, { role: 'server' });
      store = new SqliteJobStore(opened.db, new WriteQueue(opened.db, file, sink), file, 3600, silent);
      expect(await store.get(job.id)).to.deep.equal(before);
      expect((await store.getResults(job.id, 0, 4)).map((l) => (l === null ? null : JSON.parse(l).index))).to.deep.equal([0, 1, 2, null]);
      const last = await store.putResults(job.id, chunkResults(1, 3, ['allow']));
      expect(last.completed).to.equal(true);
      expect(last.job!.counts).to.deep.equal({ total: 4, scanned: 4, flagged: 1, blocked: 0, errors: 1 });
      opened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers a damaged row with an error naming the job and the field, and writes nothing over it', async () => {
    const t = freshDb();
    try {
      const store = new SqliteJobStore(t.opened.db, t.writer, t.file, 3600, silent);
      const job = newJob();
      await store.create(job);
      await store.putResults(job.id, chunkResults(0, 0, ['allow', 'allow']));
      const db = t.opened.db;
      // What a damaged page or a hand edit could leave.
      db.prepare("UPDATE scan_jobs SET state = 'paused' WHERE id = ?").run(job.id);
      const read = await refusal(store.get(job.id));
      expect(read.status).to.equal(500);
      expect(read.code).to.equal('job_damaged');
      expect(read.message).to.include(job.id).and.include(t.file).and.include('state "paused" is not one of queued, running, done, failed, cancelled');
      const write = await refusal(store.putResults(job.id, chunkResults(1, 2, ['allow'])));
      expect(write.code).to.equal('job_damaged');
      // Refused before writing: the chunk's results are not there, and the file is not reported failing.
      expect(db.prepare('SELECT count(*) AS n FROM scan_job_results WHERE job = ?').get(job.id)).to.deep.equal({ n: 1 });
      expect(t.failures).to.deep.equal([]);
      // Left out of a list, which still shows the other jobs.
      const other = newJob();
      await store.create(other);
      expect((await store.list(10)).map((j) => j.id)).to.deep.equal([other.id]);

      db.prepare("UPDATE scan_jobs SET state = 'running', scanned = -3 WHERE id = ?").run(job.id);
      expect((await refusal(store.get(job.id))).message).to.include('scanned -3 is not a count');
      db.prepare("UPDATE scan_jobs SET scanned = 2, source = 'email' WHERE id = ?").run(job.id);
      expect((await refusal(store.transition(job.id, 'cancelled'))).message).to.include('source "email" is not one of prompt, rag, output');
      db.prepare("UPDATE scan_jobs SET source = 'prompt' WHERE id = ?").run(job.id);
      expect((await store.get(job.id))!.counts.scanned).to.equal(2);

      db.prepare('UPDATE scan_job_results SET count = 3 WHERE job = ? AND chunk = 0').run(job.id);
      const results = await refusal(store.getResults(job.id, 0, 2));
      expect(results.message).to.include(job.id).and.include('the results of chunk 0 cannot be read: it holds 2 lines where 3 were written');
    } finally {
      t.cleanup();
    }
  });

  it('forgets a job jobs.ttl_hours after its last write: reads stop at once, prune deletes its rows', async () => {
    const t = freshDb();
    try {
      const store = new SqliteJobStore(t.opened.db, t.writer, t.file, 1, silent);
      const kept = new SqliteJobStore(t.opened.db, t.writer, t.file, 3600, silent);
      const old = newJob();
      const fresh = newJob();
      await store.create(old);
      await store.putResults(old.id, chunkResults(0, 0, ['allow']));
      t.opened.db.prepare('INSERT INTO scan_job_chunks (job, chunk, start, source, count, lines) VALUES (?, 1, 1, ?, 1, ?)').run(old.id, 'prompt', '{}');
      await kept.create(fresh);
      await new Promise((r) => setTimeout(r, 1100));
      expect(await store.get(old.id)).to.equal(null);
      expect((await kept.list(10)).map((j) => j.id)).to.deep.equal([fresh.id]);
      store.prune(Date.now());
      const count = (table: string) => (t.opened.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE job = ?`).get(old.id) as { n: number }).n;
      expect([count('scan_job_results'), count('scan_job_chunks')]).to.deep.equal([0, 0]);
      expect(t.opened.db.prepare('SELECT id FROM scan_jobs').pluck().all()).to.deep.equal([fresh.id]);
    } finally {
      t.cleanup();
    }
  });
});
