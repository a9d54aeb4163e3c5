import { expect } from 'chai';
import { pino } from 'pino';
import type { Chunk } from '../../../src/jobs/types.js';
import { SqliteChunkSpool } from '../../../src/storage/sqlite/job-chunks.js';
import { SqliteJobStore } from '../../../src/storage/sqlite/jobs.js';
import { newJob } from '../../support/job-store-contract.js';
import { freshDb } from '../../support/sqlite.js';

const chunk = (job: string, n: number, start: number, size: number): Chunk => ({
  job,
  chunk: n,
  start,
  source: 'rag',
  lines: Array.from({ length: size }, (_, i) => JSON.stringify({ id: `d${start + i}`, input: `text "${start + i}"` })),
});

describe('SQLite chunk spool (the embedded queue across restarts)', function () {
  let t: ReturnType<typeof freshDb>;
  let store: SqliteJobStore;
  let spool: SqliteChunkSpool;
  beforeEach(() => {
    t = freshDb();
    const log = pino({ level: 'silent' });
    store = new SqliteJobStore(t.opened.db, t.writer, t.file, 3600, log);
    spool = new SqliteChunkSpool(t.opened.db, t.writer, store, log);
  });
  afterEach(() => t.cleanup());

  it('gives back the chunks saved and not done, as saved, in job and chunk order', async () => {
    const a = newJob({ id: 'job_01aaaaaaaaaaaaaaaaaaaaaaaa' });
    const b = newJob({ id: 'job_01bbbbbbbbbbbbbbbbbbbbbbbb' });
    await store.create(a);
    await store.create(b);
    const chunks = [chunk(b.id, 0, 0, 2), chunk(a.id, 1, 3, 1), chunk(a.id, 0, 0, 3)];
    await spool.save(chunks);
    expect(await spool.unfinished()).to.deep.equal([chunks[2], chunks[1], chunks[0]]);
    await spool.done(a.id, 0);
    await spool.done(a.id, 7); // never saved: nothing happens
    expect(await spool.unfinished()).to.deep.equal([chunks[1], chunks[0]]);
  });

  it('fails the job of a chunk that does not read back, saying which chunk and why, and drops the row', async () => {
    const a = newJob();
    const b = newJob();
    await store.create(a);
    await store.create(b);
    await store.transition(a.id, 'running');
    await spool.save([chunk(a.id, 0, 0, 2), chunk(a.id, 1, 2, 2), chunk(b.id, 0, 0, 1)]);
    t.opened.db.prepare('UPDATE scan_job_chunks SET count = 5 WHERE job = ? AND chunk = 1').run(a.id);
    t.opened.db.prepare("UPDATE scan_job_chunks SET source = 'mail' WHERE job = ?").run(b.id);
    const left = await spool.unfinished();
    expect(left.map((c) => [c.job, c.chunk])).to.deep.equal([[a.id, 0]]);
    const failedA = (await store.get(a.id))!;
    expect(failedA.state).to.equal('failed');
    expect(failedA.error).to.equal('chunk 1 (documents from index 2) could not be read back from the database after a restart: it holds 2 lines where 5 were written; submit the job again');
    expect((await store.get(b.id))!.error).to.match(/^chunk 0 \(documents from index 0\) could not be read back.*source "mail" is not one of prompt, rag, output/);
    expect(t.opened.db.prepare('SELECT job, chunk FROM scan_job_chunks').all()).to.deep.equal([{ job: a.id, chunk: 0 }]);
  });
});
