/**
 * Scan jobs on one instance with SQLite and no Kafka (the embedded queue), across a real
 * `warden serve` process killed with SIGKILL and started again on the same database: a finished
 * job is still served, an interrupted one finishes with every document once and in input order,
 * an upload the kill cut short fails saying so, and damaged rows get errors that name them.
 */
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { spawnWarden, type WardenProcess } from '../../harness/warden.js';
import { sleep } from '../support/events.js';
import { generatedJsonl, getJob, results, submitJob, waitForJob, type Json } from '../support/jobs.js';

const KEY = `svc_test_restart_${Math.random().toString(36).slice(2)}_0123456789`;

describe('scan jobs on SQLite: a SIGKILL and a restart on the same database', function () {
  this.timeout(240_000);
  let dir: string;
  let file: string;
  const running: WardenProcess[] = [];

  const start = async (instance: string): Promise<WardenProcess> => {
    const w = await spawnWarden({
      server: { instance_id: instance },
      auth: { bootstrap_key: KEY },
      security: { rate_limit: 1_000_000 },
      storage: { backend: 'sqlite', sqlite_path: file, store_input: 'none' },
      scanning: { watch_rules: false },
      jobs: { chunk_size: 50, concurrency: 1, max_documents: 50_000, max_bytes: 20_000_000 },
    }, {}, 60_000);
    running.push(w);
    return w;
  };
  /** Reads the file while no server holds it. */
  const inFile = <T>(read: (db: Database.Database) => T): T => {
    const db = new Database(file);
    try {
      return read(db);
    } finally {
      db.close();
    }
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'warden-jobs-restart-'));
    file = join(dir, 'warden.db');
  });
  afterEach(async () => {
    await Promise.allSettled(running.splice(0).map((w) => w.stop('SIGKILL')));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a finished job as before, and finishes an interrupted one: every document once, in input order', async () => {
    const n = 20_000;
    let w = await start('first');
    const small = await submitJob(w.url, KEY, generatedJsonl(300, 97));
    expect(small.status, JSON.stringify(small.body)).to.equal(202);
    const smallDone = await waitForJob(w.url, KEY, small.body.id, ['done'], 60_000);
    const smallResults = await results(w.url, KEY, small.body.id);

    const big = await submitJob(w.url, KEY, generatedJsonl(n));
    expect(big.status, JSON.stringify(big.body)).to.equal(202);
    for (let i = 0; i < 600 && (await getJob(w.url, KEY, big.body.id)).counts.scanned < 1000; i++) await sleep(50);
    await w.stop('SIGKILL');

    // Killed mid-job: some results committed, some chunks still waiting in the file.
    const atKill = inFile((db) => ({
      job: db.prepare('SELECT state, scanned, total FROM scan_jobs WHERE id = ?').get(big.body.id) as { state: string; scanned: number; total: number },
      waiting: (db.prepare('SELECT count(*) AS n FROM scan_job_chunks WHERE job = ?').get(big.body.id) as { n: number }).n,
    }));
    expect(atKill.job.total).to.equal(n);
    expect(atKill.job.state, 'the job should still run when the instance is killed').to.equal('running');
    expect(atKill.job.scanned).to.be.above(0).and.below(n);
    expect(atKill.waiting).to.be.at.least(Math.ceil((n - atKill.job.scanned) / 50) - 1);

    w = await start('second');
    // The finished job: the same answer and the same results, line for line.
    const smallAfter = await getJob(w.url, KEY, small.body.id);
    expect(smallAfter).to.deep.include({ state: 'done', counts: smallDone.counts, finished_at: smallDone.finished_at });
    expect((await results(w.url, KEY, small.body.id)).lines).to.deep.equal(smallResults.lines);

    const done = await waitForJob(w.url, KEY, big.body.id, ['done'], 180_000);
    expect(done.counts).to.deep.include({ total: n, scanned: n, errors: 0 });
    const r = await results(w.url, KEY, big.body.id);
    expect(r.lines.length, 'one line per document, no duplicate').to.equal(n);
    expect(r.lines.every((l: Json, i: number) => l.index === i && l.id === `doc-${i}`), 'input order').to.equal(true);
    const byInstance = (name: string) => r.lines.filter((l: Json) => l.instance_id === name).length;
    // What was committed before the kill is kept as it was; the rest was scanned after the restart.
    expect(byInstance('first')).to.be.at.least(atKill.job.scanned);
    expect(byInstance('second')).to.be.above(0);
    expect(byInstance('first') + byInstance('second')).to.equal(n);
    expect(done.counts.flagged + done.counts.blocked).to.equal(r.lines.filter((l: Json) => l.flagged).length);
    await w.stop('SIGKILL');
    expect(inFile((db) => db.prepare('SELECT count(*) AS n FROM scan_job_chunks').get())).to.deep.equal({ n: 0 });
  });

  it('fails a job whose upload the kill cut short, saying why', async () => {
    let w = await start('first');
    const body = generatedJsonl(2000);
    const upload = request(`${w.url}/v1/scan/jobs`, { method: 'POST', headers: { 'x-api-key': KEY, 'content-type': 'application/x-ndjson' } });
    upload.on('error', () => undefined);
    upload.write(body.slice(0, body.length / 2));
    let cut: Json | undefined;
    for (let i = 0; i < 200 && !cut; i++) {
      await sleep(50);
      const list = (await (await fetch(`${w.url}/v1/scan/jobs`, { headers: { 'x-api-key': KEY } })).json()) as { data: Json[] };
      cut = list.data.find((j) => j.counts.total === null);
    }
    expect(cut, 'the job exists while its upload is read').to.not.equal(undefined);
    await w.stop('SIGKILL');
    upload.destroy();

    w = await start('second');
    const after = await waitForJob(w.url, KEY, cut!.id, ['failed'], 20_000);
    expect(after.error).to.match(/the instance stopped while the upload was being read.*submit it again/);
  });

  it('answers a damaged job with an error naming it, and fails a job whose saved chunk is damaged', async () => {
    let w = await start('first');
    const ok = await submitJob(w.url, KEY, generatedJsonl(100));
    await waitForJob(w.url, KEY, ok.body.id, ['done'], 60_000);
    const big = await submitJob(w.url, KEY, generatedJsonl(20_000));
    expect(big.status).to.equal(202);
    for (let i = 0; i < 600 && (await getJob(w.url, KEY, big.body.id)).counts.scanned < 500; i++) await sleep(50);
    await w.stop('SIGKILL');

    const damaged = inFile((db) => {
      db.prepare("UPDATE scan_jobs SET state = 'paused' WHERE id = ?").run(ok.body.id);
      // The last chunk still waiting: its line count no longer matches what was written.
      const last = db.prepare('SELECT chunk, start FROM scan_job_chunks WHERE job = ? ORDER BY chunk DESC LIMIT 1').get(big.body.id) as { chunk: number; start: number } | undefined;
      if (last) db.prepare('UPDATE scan_job_chunks SET count = count + 1 WHERE job = ? AND chunk = ?').run(big.body.id, last.chunk);
      return last;
    });
    expect(damaged, 'the big job should still have chunks waiting when killed').to.not.equal(undefined);

    w = await start('second');
    const res = await fetch(`${w.url}/v1/scan/jobs/${ok.body.id}`, { headers: { 'x-api-key': KEY } });
    const err = ((await res.json()) as Json).error;
    expect(res.status).to.equal(500);
    expect(err.code).to.equal('job_damaged');
    expect(err.message).to.include(ok.body.id).and.include('state "paused" is not one of');
    expect((await fetch(`${w.url}/v1/scan/jobs/${ok.body.id}/results`, { headers: { 'x-api-key': KEY } })).status).to.equal(500);

    const failed = await waitForJob(w.url, KEY, big.body.id, ['failed'], 60_000);
    expect(failed.error).to.equal(`chunk ${damaged!.chunk} (documents from index ${damaged!.start}) could not be read back from the database after a restart: it holds 50 lines where 51 were written; submit the job again`);
    // What was scanned is still served, in input order, without the documents never scanned.
    const r = await results(w.url, KEY, big.body.id);
    expect(r.lines.length).to.equal(failed.counts.scanned);
    expect(r.lines.every((l: Json, i: number) => i === 0 || l.index > r.lines[i - 1]!.index)).to.equal(true);
  });
});
