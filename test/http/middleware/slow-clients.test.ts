import { connect, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/config/load.js';
import { startWarden, type InProcessWarden } from '../../../harness/warden.js';

interface Exchange {
  /** Everything the server wrote before it closed the connection (or the wait ran out). */
  text: string;
  status: number | null;
  /** ms from the first byte sent to the close; null when it stayed open. */
  closedAfterMs: number | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Opens a raw connection, writes `head` then each of `drip` with `everyMs` between them, and
 * waits up to `waitMs` for the server to close it. */
async function exchange(w: InProcessWarden, head: string | Buffer, drip: string[] = [], everyMs = 0, waitMs = 5000): Promise<Exchange> {
  const url = new URL(w.url);
  const socket: Socket = connect(Number(url.port), url.hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const chunks: Buffer[] = [];
  socket.on('data', (d: Buffer) => chunks.push(d));
  socket.on('error', () => undefined); // a reset after the answer is fine
  const started = performance.now();
  let closedAt: number | null = null;
  const closed = new Promise<void>((resolve) => socket.once('close', () => ((closedAt = performance.now()), resolve())));
  socket.write(head);
  const dripping = (async () => {
    for (const piece of drip) {
      await sleep(everyMs);
      if (socket.destroyed || closedAt !== null) return;
      socket.write(piece);
    }
  })();
  await Promise.race([closed, sleep(waitMs)]);
  await dripping.catch(() => undefined);
  socket.destroy();
  const text = Buffer.concat(chunks).toString('latin1');
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return { text, status: m ? Number(m[1]) : null, closedAfterMs: closedAt === null ? null : closedAt - started };
}

const requestHead = (path: string, headers: Record<string, string | number>) =>
  `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('work before authentication, and slow clients', function () {
  this.timeout(60_000);
  let w: InProcessWarden;

  before(async () => {
    w = await startWarden({
      security: { rate_limit: 100_000 },
      server: { headers_timeout_ms: 1000, request_timeout_ms: 2000, max_pending_connections_per_ip: 6 },
    });
  });
  after(() => w.close());

  it('answers POST /v1/keys with a depth-100k body and no key with 401, not 400, and closes the connection; with a key the depth check still answers 400', async function () {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const anonymous = await fetch(`${w.url}/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
    expect(anonymous.status).to.equal(401);
    expect(((await anonymous.json()) as { error: { type: string } }).error.type).to.equal('authentication_error');
    expect(anonymous.headers.get('connection')).to.equal('close');
    const admin = await fetch(`${w.url}/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': w.adminKey }, body: deep });
    expect(admin.status).to.equal(400);
    expect(((await admin.json()) as { error: { code: string } }).error.code).to.equal('json_too_deep');
  });

  it('answers a compressed bomb, a wrong media type and a bad key with 401 before inflating or reading anything', async function () {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    const attempts: Record<string, string>[] = [
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      { 'content-type': 'application/json', 'content-encoding': 'gzip', 'x-api-key': 'svc_not_a_real_key_0000000000' },
      { 'content-type': 'text/plain' },
    ];
    for (const headers of attempts) {
      const res = await fetch(`${w.url}/v1/scan`, { method: 'POST', headers, body: bomb });
      expect(res.status, JSON.stringify(headers)).to.equal(401);
      await res.arrayBuffer();
    }
    // Login is public: its body is still read and checked.
    const login = await fetch(`${w.url}/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
    expect(login.status).to.equal(415);
  });

  it('answers a body dripping in without a key with 401 at once and closes the connection', async function () {
    const r = await exchange(w, requestHead('/v1/scan', { 'Content-Type': 'application/json', 'Content-Length': 200 }), Array(20).fill('{'), 100, 3000);
    expect(r.status).to.equal(401);
    expect(r.closedAfterMs).to.be.a('number').and.lessThan(1000);
  });

  it('cuts an authenticated body that drips in within server.request_timeout_ms (2 s here) with 408', async function () {
    const r = await exchange(w, requestHead('/v1/scan', { 'Content-Type': 'application/json', 'Content-Length': 500, 'X-API-Key': w.adminKey }), Array(100).fill(' '), 200, 8000);
    expect(r.closedAfterMs, r.text).to.be.a('number');
    expect(r.closedAfterMs!).to.be.at.least(1500).and.lessThan(4500); // the timeout, plus Node's once-a-second check
    expect(r.status).to.equal(408);
  });

  it('cuts headers that drip in within server.headers_timeout_ms (1 s here)', async function () {
    const r = await exchange(w, 'GET /health HTTP/1.1\r\n', Array(50).fill('X-Slow: 1\r\n'), 150, 8000);
    expect(r.closedAfterMs, r.text).to.be.a('number').and.lessThan(3500);
    expect(r.text).not.to.contain('200 OK');
  });

  it('closes connections over server.max_pending_connections_per_ip from one address, and counts one that authenticated no longer', async function () {
    const url = new URL(w.url);
    const open = async () => {
      const s = connect(Number(url.port), url.hostname);
      s.on('error', () => undefined);
      await new Promise<void>((resolve) => s.once('connect', resolve));
      return s;
    };
    const idle: Socket[] = [];
    for (let i = 0; i < 6; i++) idle.push(await open());
    const extra = await open();
    const closed = await Promise.race([new Promise<boolean>((r) => extra.once('close', () => r(true))), sleep(1000).then(() => false)]);
    expect(closed, 'the 7th pending connection is closed').to.equal(true);
    // One of the six authenticates (keep-alive): it no longer counts, so a new one is let in.
    const authed = idle[0]!;
    const answered = new Promise<string>((resolve) => authed.once('data', (d: Buffer) => resolve(d.toString('latin1'))));
    authed.write(`GET /v1/auth/whoami HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${w.adminKey}\r\n\r\n`);
    expect(await answered).to.match(/^HTTP\/1\.1 200/);
    const next = await open();
    const nextClosed = await Promise.race([new Promise<boolean>((r) => next.once('close', () => r(true))), sleep(500).then(() => false)]);
    expect(nextClosed, 'a connection is let in once one authenticated').to.equal(false);
    for (const s of [...idle, next, extra]) s.destroy();
    await sleep(200);
    // All closed: ordinary requests go through.
    expect((await fetch(`${w.url}/health`)).status).to.equal(200);
  });

  it('refuses timeouts that contradict each other or are out of range, naming the key', function () {
    const bad = (server: Record<string, unknown>) => {
      try {
        loadConfig({ raw: { server }, env: {} });
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad({ headers_timeout_ms: 20_000, request_timeout_ms: 10_000 })).to.contain('server.headers_timeout_ms = 20000: expected at most server.request_timeout_ms (10000)');
    expect(bad({ request_timeout_ms: 10 })).to.contain('server.request_timeout_ms');
    expect(bad({ max_pending_connections_per_ip: -1 })).to.contain('server.max_pending_connections_per_ip');
    const { config } = loadConfig({ raw: {}, env: {} });
    expect(config.server).to.include({ headers_timeout_ms: 10_000, request_timeout_ms: 30_000, max_pending_connections_per_ip: 512 });
  });
});
