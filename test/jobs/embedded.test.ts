/**
 * Scan jobs on one instance without Kafka (the embedded queue), through the real HTTP API:
 * upload (plain, gzip, files), results in order with the verdict fields of /v1/scan/batch,
 * cursors, limits, malformed lines, cancel, and the scan_job_progress events on the WebSocket.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { startWarden, type InProcessWarden } from '../../harness/warden.js';
import { AUDIENCE, ISSUER, RecordingClient, SECRET, makeToken, sleep } from '../support/events.js';
import { generatedDoc, generatedJsonl, getJob, results, submitJob, waitForJob, type Json } from '../support/jobs.js';

describe('scan jobs: one instance, embedded queue', function () {
  this.timeout(120_000);
  let w: InProcessWarden;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'warden-jobs-'));
    mkdirSync(join(dir, 'store'));
    w = await startWarden({
      auth: { jwt: { secret: SECRET, issuer: ISSUER, audience: AUDIENCE } },
      security: { rate_limit: 100000 },
      jobs: { chunk_size: 50, max_documents: 5000, max_bytes: 2_000_000, files_dir: join(dir, 'store'), progress_interval_ms: 1000 },
    });
  });
  after(async () => {
    await w?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs an NDJSON job: 202, then every document once, in input order, with the batch verdict fields; a malformed line is an error result', async () => {
    const n = 1000;
    const sub = await submitJob(w.url, w.adminKey, generatedJsonl(n, 97), { query: '?source=rag' });
    expect(sub.status, JSON.stringify(sub.body)).to.equal(202);
    expect(sub.body.id).to.match(/^job_[0-9a-z]{26}$/);
    expect(['queued', 'running', 'done']).to.include(sub.body.state);
    expect(sub.body.counts.total).to.equal(n);
    const done = await waitForJob(w.url, w.adminKey, sub.body.id, ['done'], 60_000);
    const malformed = Math.floor(n / 97);
    expect(done.counts).to.deep.include({ total: n, scanned: n, errors: malformed });
    expect(done.eta_seconds).to.equal(0);
    const r = await results(w.url, w.adminKey, sub.body.id);
    expect(r.state).to.equal('done');
    expect(r.lines.map((l) => l.index)).to.deep.equal([...Array(n).keys()]);
    // A malformed line's id cannot be read: it is the line's index.
    expect(r.lines.map((l) => l.id)).to.deep.equal([...Array(n).keys()].map((i) => (i % 97 === 96 ? String(i) : `doc-${i}`)));
    const bad = r.lines.filter((l) => l.error);
    expect(bad).to.have.length(malformed);
    expect(bad[0]!.index).to.equal(96);
    expect(bad[0]!.error).to.include({ code: 'invalid_line', type: 'invalid_request_error' });
    expect(bad[0]!.error.message).to.match(/line 97 is not valid JSON/);
    // The same fields /v1/scan/batch gives for the same documents.
    const docs = [7, 8, 57].map(generatedDoc);
    const batch = (await (await fetch(`${w.url}/v1/scan/batch`, {
      method: 'POST', headers: { 'x-api-key': w.adminKey, 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: docs.map((d) => ({ ...d, source: 'rag' })) }),
    })).json()) as { results: Json[] };
    for (const [k, i] of [7, 8, 57].entries()) {
      const line = r.lines[i]!;
      const fromBatch = batch.results[k]!;
      expect(Object.keys(line).filter((x) => !['index', 'instance_id', 'chunk'].includes(x)).sort()).to.deep.equal(Object.keys(fromBatch).sort());
      expect(line.verdict).to.equal(fromBatch.verdict);
      expect(line.source).to.equal('rag');
      expect(line.instance_id).to.equal(w.server.services.instanceId);
    }
    expect(r.lines[7]!.flagged).to.equal(true);
    expect(r.lines[8]!.flagged).to.equal(false);
    expect(done.counts.flagged + done.counts.blocked).to.equal(r.lines.filter((l) => l.flagged).length);
  });

  it('resumes the results from a cursor and takes a gzip upload', async () => {
    const sub = await submitJob(w.url, w.adminKey, generatedJsonl(300), { gzip: true });
    expect(sub.status, JSON.stringify(sub.body)).to.equal(202);
    await waitForJob(w.url, w.adminKey, sub.body.id, ['done'], 30_000);
    const page = await results(w.url, w.adminKey, sub.body.id, '?cursor=120&limit=5');
    expect(page.lines.map((l) => l.index)).to.deep.equal([120, 121, 122, 123, 124]);
    expect(page.lines.map((l) => l.id)).to.deep.equal(['doc-120', 'doc-121', 'doc-122', 'doc-123', 'doc-124']);
    const rest = await results(w.url, w.adminKey, sub.body.id, '?cursor=295');
    expect(rest.lines.map((l) => l.index)).to.deep.equal([295, 296, 297, 298, 299]);
  });

  it('refuses a job over jobs.max_documents or jobs.max_bytes at once, naming the limit', async () => {
    const many = await submitJob(w.url, w.adminKey, generatedJsonl(5001));
    expect(many.status).to.equal(413);
    expect(many.body.error.message).to.match(/more than 5000 documents.*jobs\.max_documents/);
    const big = await submitJob(w.url, w.adminKey, `${JSON.stringify({ id: 'x', input: 'a'.repeat(2_100_000) })}\n`);
    expect(big.status).to.equal(413);
    expect(big.body.error.message).to.match(/jobs\.max_bytes/);
    // The refused job is not scanned on: it is failed, and says why.
    const list = (await (await fetch(`${w.url}/v1/scan/jobs`, { headers: { 'x-api-key': w.adminKey } })).json()) as { data: Json[] };
    const refused = list.data.find((j) => j.state === 'failed' && /max_documents/.test(j.error));
    expect(refused, JSON.stringify(list.data.map((j) => [j.state, j.error]))).to.not.equal(undefined);
  });

  it('answers wrong requests with errors that name what is wrong', async () => {
    const empty = await submitJob(w.url, w.adminKey, '\n\n');
    expect(empty.status).to.equal(400);
    expect(empty.body.error.code).to.equal('empty_job');
    const badSource = await submitJob(w.url, w.adminKey, generatedJsonl(2), { query: '?source=bogus' });
    expect(badSource.status).to.equal(400);
    expect(badSource.body.error.message).to.match(/source/);
    const h = { 'x-api-key': w.adminKey };
    expect((await fetch(`${w.url}/v1/scan/jobs/nope`, { headers: h })).status).to.equal(400);
    const missing = await fetch(`${w.url}/v1/scan/jobs/job_00000000000000000000000000`, { headers: h });
    expect(missing.status).to.equal(404);
    expect(((await missing.json()) as Json).error.code).to.equal('job_not_found');
    const text = await fetch(`${w.url}/v1/scan/jobs`, { method: 'POST', headers: { ...h, 'content-type': 'text/plain' }, body: 'x' });
    expect(text.status).to.equal(415);
    const noAuth = await fetch(`${w.url}/v1/scan/jobs`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: generatedJsonl(1) });
    expect(noAuth.status).to.equal(401);
    // A line that is JSON but not a document is an error result naming the field.
    const sub = await submitJob(w.url, w.adminKey, ['{"id":"a","input":"hello"}', '{"id":"b"}', '{"id":"c","input":"x","source":"sql"}', '[1]'].join('\n'));
    expect(sub.status).to.equal(202);
    await waitForJob(w.url, w.adminKey, sub.body.id, ['done'], 10_000);
    const r = await results(w.url, w.adminKey, sub.body.id);
    expect(r.lines.map((l) => l.error?.param ?? null)).to.deep.equal([null, 'input', 'source', null]);
    expect(r.lines[2]!.error.message).to.match(/"source" must be one of prompt, rag, output, got "sql"/);
    expect(r.lines[3]!.error.message).to.match(/must be a JSON object/);
  });

  it('reads file:// JSONL files under jobs.files_dir (gzip too) and refuses any other path', async () => {
    writeFileSync(join(dir, 'store', 'a.jsonl'), generatedJsonl(40));
    writeFileSync(join(dir, 'store', 'b.jsonl.gz'), gzipSync([60, 61].map((i) => JSON.stringify(generatedDoc(i))).join('\n')));
    writeFileSync(join(dir, 'outside.jsonl'), generatedJsonl(2));
    symlinkSync(join(dir, 'outside.jsonl'), join(dir, 'store', 'link.jsonl'));
    const post = (body: unknown) => fetch(`${w.url}/v1/scan/jobs`, { method: 'POST', headers: { 'x-api-key': w.adminKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await post({ files: [`file://${join(dir, 'store', 'a.jsonl')}`, `file://${join(dir, 'store', 'b.jsonl.gz')}`], source: 'rag' });
    const job = (await ok.json()) as Json;
    expect(ok.status, JSON.stringify(job)).to.equal(202);
    expect(job.counts.total).to.equal(42);
    await waitForJob(w.url, w.adminKey, job.id, ['done'], 20_000);
    const r = await results(w.url, w.adminKey, job.id);
    expect(r.lines.map((l) => l.id).slice(38)).to.deep.equal(['doc-38', 'doc-39', 'doc-60', 'doc-61']);
    for (const [body, code] of [
      [{ files: [`file://${join(dir, 'outside.jsonl')}`] }, 'file_outside_dir'],
      [{ files: [`file://${join(dir, 'store', 'link.jsonl')}`] }, 'file_outside_dir'],
      [{ files: [`file://${join(dir, 'store', 'nope.jsonl')}`] }, 'file_not_found'],
      [{ files: ['s3://bucket/key.jsonl'] }, 'unsupported_file_url'],
    ] as const) {
      const res = await post(body);
      const err = ((await res.json()) as Json).error;
      expect(res.status, JSON.stringify(err)).to.equal(400);
      expect(err.code).to.equal(code);
      expect(err.param).to.equal('files[0]');
    }
  });

  it('cancels a running job: it stops within a chunk and stays cancelled', async () => {
    const sub = await submitJob(w.url, w.adminKey, generatedJsonl(5000));
    expect(sub.status).to.equal(202);
    const del = await fetch(`${w.url}/v1/scan/jobs/${sub.body.id}`, { method: 'DELETE', headers: { 'x-api-key': w.adminKey } });
    const cancelled = (await del.json()) as Json;
    expect(del.status).to.equal(200);
    expect(cancelled.state).to.equal('cancelled');
    await sleep(1500);
    const after = await getJob(w.url, w.adminKey, sub.body.id);
    expect(after.state).to.equal('cancelled');
    // Chunks already being scanned when the cancel came may finish (concurrency 2 x 50 documents); no more.
    expect(after.counts.scanned).to.be.at.most(cancelled.counts.scanned + 2 * 50);
    expect(after.counts.scanned).to.be.below(5000);
    await sleep(1000);
    expect((await getJob(w.url, w.adminKey, sub.body.id)).counts.scanned).to.equal(after.counts.scanned);
    const r = await results(w.url, w.adminKey, sub.body.id);
    expect(r.lines).to.have.length(after.counts.scanned);
    // Pages of a cancelled job skip the documents never scanned and go on after them.
    const firstPage = await results(w.url, w.adminKey, sub.body.id, '?limit=3');
    expect(firstPage.lines).to.deep.equal(r.lines.slice(0, 3));
    const last = r.lines.at(-2)!.index as number;
    const tail = await results(w.url, w.adminKey, sub.body.id, `?cursor=${last}&limit=5`);
    expect(tail.lines).to.deep.equal(r.lines.slice(-2));
    const again = await fetch(`${w.url}/v1/scan/jobs/${sub.body.id}`, { method: 'DELETE', headers: { 'x-api-key': w.adminKey } });
    expect(again.status).to.equal(200);
  });

  it('raises scan_job_progress at most once a second per job, only to WebSocket clients that subscribe to it', async () => {
    const wsUrl = `${w.url.replace(/^http/, 'ws')}/ws/events`;
    const plain = await RecordingClient.bearer(wsUrl, await makeToken());
    const sub = await RecordingClient.bearer(wsUrl, await makeToken());
    sub.send({ action: 'subscribe', event_types: ['scan_job_progress'] });
    await sub.waitForReplies(1);
    try {
      const job = await submitJob(w.url, w.adminKey, generatedJsonl(4000));
      await waitForJob(w.url, w.adminKey, job.body.id, ['done'], 60_000);
      await sub.waitFor((m) => m.some((x) => x.type === 'scan_job_progress' && (x as Json).data.state === 'done'), 5000, 'the done progress event');
      const progress = sub.events().filter((e) => e.type === 'scan_job_progress' && (e as Json).data.job_id === job.body.id) as Json[];
      const last = progress.at(-1)!;
      expect(last.data).to.deep.include({ state: 'done', total: 4000, scanned: 4000, eta_seconds: 0 });
      const times = progress.filter((p) => p.data.state !== 'done').map((p) => Date.parse(p.timestamp));
      for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!, 'gap between progress events').to.be.at.least(990);
      expect(plain.events().filter((e) => e.type === 'scan_job_progress')).to.have.length(0);
    } finally {
      plain.close();
      sub.close();
    }
  });
});
