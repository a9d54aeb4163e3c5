/**
 * What every JobStore (memory, SQLite, Redis) must do, run against each by its own test file:
 * jobs newest first, the state rules, results kept per (job, chunk) with the first write winning
 * and counted once, reads by input index with holes where no result is in yet.
 */
import { expect } from 'chai';
import type { ChunkResults, Job, JobStore } from '../../src/jobs/types.js';
import { newId } from '../../src/util/ids.js';

export function newJob(over: Partial<Job> = {}): Job {
  return {
    id: newId('job'),
    state: 'queued',
    source: 'prompt',
    created_at: new Date().toISOString(),
    started_at: null,
    finished_at: null,
    chunks: 0,
    chunk_size: 3,
    accepted_by: 'warden-a',
    caller: 'key_a',
    error: null,
    counts: { total: null, scanned: 0, flagged: 0, blocked: 0, errors: 0 },
    ...over,
  };
}

/** Results of chunk `chunk` covering [start, start + n): line text `<tag>:<index>`, the kinds in order. */
export function chunkResults(chunk: number, start: number, kinds: ('allow' | 'flag' | 'block' | 'error')[], tag = 'a'): ChunkResults {
  return {
    chunk,
    start,
    lines: kinds.map((_, i) => JSON.stringify({ index: start + i, by: tag })),
    flagged: kinds.filter((k) => k === 'flag').length,
    blocked: kinds.filter((k) => k === 'block').length,
    errors: kinds.filter((k) => k === 'error').length,
  };
}

const by = (line: string | null) => (line === null ? null : (JSON.parse(line) as { by: string }).by);
const indexOf = (line: string | null) => (line === null ? null : (JSON.parse(line) as { index: number }).index);

export function jobStoreContract(make: () => Promise<{ store: JobStore; cleanup(): Promise<void> }>): void {
  let store: JobStore;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ store, cleanup } = await make());
  });
  afterEach(async () => cleanup());

  it('keeps a job as created, lists jobs newest first, and knows no job it was not given', async () => {
    const older = newJob({ created_at: new Date(Date.now() - 1000).toISOString() });
    const newer = newJob();
    await store.create(older);
    await store.create(newer);
    expect(await store.get(older.id)).to.deep.equal(older);
    expect((await store.list(10)).map((j) => j.id)).to.deep.equal([newer.id, older.id]);
    expect((await store.list(1)).map((j) => j.id)).to.deep.equal([newer.id]);
    expect(await store.get(newId('job'))).to.equal(null);
    expect(await store.setChunks(newId('job'), 1, 1)).to.equal(null);
    expect(await store.transition(newId('job'), 'running')).to.deep.equal({ job: null, moved: false });
    expect(await store.putResults(newId('job'), chunkResults(0, 0, ['allow']))).to.deep.include({ added: 0, job: null, completed: false });
  });

  it('moves through the states once: started and finished stamped once, a final state never left', async () => {
    const job = newJob();
    await store.create(job);
    const running = await store.transition(job.id, 'running');
    expect(running.moved).to.equal(true);
    expect(running.job!.state).to.equal('running');
    expect(running.job!.started_at).to.be.a('string');
    expect((await store.transition(job.id, 'running')).moved).to.equal(false);
    const cancelled = await store.transition(job.id, 'cancelled');
    expect(cancelled.moved).to.equal(true);
    expect(cancelled.job!.started_at).to.equal(running.job!.started_at);
    expect(cancelled.job!.finished_at).to.be.a('string');
    const failed = await store.transition(job.id, 'failed', { error: 'too late' });
    expect(failed).to.deep.include({ moved: false });
    expect(failed.job).to.deep.include({ state: 'cancelled', error: null });
    const other = newJob();
    await store.create(other);
    const refused = await store.transition(other.id, 'failed', { error: 'refused at submission: too big' });
    expect(refused.job).to.deep.include({ state: 'failed', error: 'refused at submission: too big' });
    expect(refused.job!.started_at).to.equal(refused.job!.finished_at);
  });

  it('counts a chunk once: a rescanned chunk changes nothing, the first results are kept, the last chunk completes the job once', async () => {
    const job = newJob();
    await store.create(job);
    expect((await store.setChunks(job.id, 2, null))!.chunks).to.equal(2);
    await store.transition(job.id, 'running');
    const first = await store.putResults(job.id, chunkResults(0, 0, ['allow', 'flag', 'block']));
    expect(first.added).to.equal(3);
    expect(first.completed).to.equal(false);
    expect(first.job!.counts).to.deep.equal({ total: null, scanned: 3, flagged: 1, blocked: 1, errors: 0 });
    const again = await store.putResults(job.id, chunkResults(0, 0, ['error', 'error', 'error'], 'b'));
    expect(again.added).to.equal(0);
    expect(again.job!.counts).to.deep.equal(first.job!.counts);
    expect((await store.getResults(job.id, 0, 3)).map(by)).to.deep.equal(['a', 'a', 'a']);
    // Total known only now: the upload ended. Not done yet (chunk 1 is missing).
    const withTotal = await store.setChunks(job.id, 2, 5);
    expect(withTotal!.state).to.equal('running');
    const last = await store.putResults(job.id, chunkResults(1, 3, ['error', 'allow']));
    expect(last).to.deep.include({ added: 2, completed: true });
    expect(last.job!.state).to.equal('done');
    expect(last.job!.finished_at).to.be.a('string');
    expect(last.job!.counts).to.deep.equal({ total: 5, scanned: 5, flagged: 1, blocked: 1, errors: 1 });
    const late = await store.putResults(job.id, chunkResults(1, 3, ['allow', 'allow'], 'c'));
    expect(late).to.deep.include({ added: 0, completed: false });
    expect((await store.get(job.id))!.counts.scanned).to.equal(5);
  });

  it('completes a job when its total arrives after its last results, and an empty one at once', async () => {
    const job = newJob();
    await store.create(job);
    await store.putResults(job.id, chunkResults(0, 0, ['allow', 'allow']));
    const done = await store.setChunks(job.id, 1, 2);
    expect(done!.state).to.equal('done');
    const empty = newJob();
    await store.create(empty);
    expect((await store.setChunks(empty.id, 0, 0))!.state).to.equal('done');
  });

  it('reads results by input index from any cursor, with null where a chunk has no results yet', async () => {
    const job = newJob();
    await store.create(job);
    await store.putResults(job.id, chunkResults(0, 0, ['allow', 'allow', 'allow']));
    await store.putResults(job.id, chunkResults(2, 6, ['allow', 'flag', 'allow']));
    await store.putResults(job.id, chunkResults(3, 9, ['allow']));
    expect((await store.getResults(job.id, 0, 10)).map(indexOf)).to.deep.equal([0, 1, 2, null, null, null, 6, 7, 8, 9]);
    expect((await store.getResults(job.id, 1, 2)).map(indexOf)).to.deep.equal([1, 2]);
    expect((await store.getResults(job.id, 4, 4)).map(indexOf)).to.deep.equal([null, null, 6, 7]);
    expect((await store.getResults(job.id, 7, 1)).map(indexOf)).to.deep.equal([7]);
    expect((await store.getResults(job.id, 9, 5)).map(indexOf)).to.deep.equal([9, null, null, null, null]);
    expect(await store.getResults(job.id, 0, 0)).to.deep.equal([]);
    expect(await store.getResults(newId('job'), 0, 2)).to.deep.equal([null, null]);
  });

  it('gives the progress slot at most once per interval per job', async () => {
    const a = newJob();
    const b = newJob();
    await store.create(a);
    await store.create(b);
    expect(await store.progressSlot(a.id, 200)).to.equal(true);
    expect(await store.progressSlot(a.id, 200)).to.equal(false);
    expect(await store.progressSlot(b.id, 200)).to.equal(true);
    await new Promise((r) => setTimeout(r, 250));
    expect(await store.progressSlot(a.id, 200)).to.equal(true);
  });
}
