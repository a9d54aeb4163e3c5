import { expect } from 'chai';
import { startWarden, type InProcessWarden } from '../../harness/warden.js';

/**
 * One rule for paths: routes match case-sensitively (`/V1/KEYS` is no route), and the
 * authentication gate reads the `/v1/` prefix in any case, so no casing of a protected path
 * reaches a handler without a credential or skips the rate limit, and none answers 500.
 */
describe('paths in any letter case', function () {
  this.timeout(60_000);
  let w: InProcessWarden;
  const operations: { method: string; path: string }[] = [];

  before(async () => {
    w = await startWarden({ security: { rate_limit: 100_000 } });
    const spec = (await (await fetch(`${w.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    for (const [path, ops] of Object.entries(spec.paths)) {
      for (const method of Object.keys(ops)) operations.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x_1') });
    }
    expect(operations.length).to.be.greaterThan(20);
  });
  after(() => w.close());

  /** Upper case, title case, and a mix that differs from the real path in the v1 prefix only. */
  const variants = (path: string) => [...new Set([path.toUpperCase(), path.replace(/\b[a-z]/g, (c) => c.toUpperCase()), path.replace(/^\/v1\//, '/V1/'), [...path].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')])].filter((v) => v !== path);

  const send = (method: string, path: string, headers: Record<string, string> = {}) =>
    fetch(w.url + path, { method, headers: { 'content-type': 'application/json', ...headers }, body: ['POST', 'PUT', 'PATCH'].includes(method) ? '{}' : undefined });

  it('answers every casing of every route without a credential with 401 (a /v1 path) or 404, never 500 or a handler', async function () {
    const seen = new Map<number, number>();
    for (const { method, path } of operations) {
      for (const v of variants(path)) {
        const res = await send(method, v);
        const body = (await res.json()) as { error?: { code?: string } };
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        const expected = v.toLowerCase().startsWith('/v1/') ? 401 : 404;
        expect(res.status, `${method} ${v}`).to.equal(expected);
        expect(body.error, `${method} ${v}`).to.be.an('object');
      }
    }
    expect(seen.get(401)).to.be.greaterThan(20);
  });

  it('answers the issue\'s probes as the rule says: GET /V1/AUTH/WHOAMI and /V1/KEYS are 401 without a credential, 404 with one', async function () {
    for (const path of ['/V1/AUTH/WHOAMI', '/V1/KEYS', '/v1/KEYS', '/V1/keys']) {
      const anonymous = await send('GET', path);
      expect(anonymous.status, path).to.equal(401);
      expect(((await anonymous.json()) as { error: { type: string } }).error.type).to.equal('authentication_error');
      const admin = await send('GET', path, { 'x-api-key': w.adminKey });
      expect(admin.status, path).to.equal(404);
      expect(((await admin.json()) as { error: { code: string } }).error.code).to.equal('not_found');
    }
    // The real paths still work.
    expect((await send('GET', '/v1/keys', { 'x-api-key': w.adminKey })).status).to.equal(200);
    expect((await send('GET', '/v1/auth/whoami', { 'x-api-key': w.adminKey })).status).to.equal(200);
  });

  it('never lets another spelling of a protected path through: doubled slashes, dot segments, percent-escapes, a trailing slash', async function () {
    for (const path of ['//v1/keys', '/v1//keys', '/v1/./keys', '/v1/%6Beys', '/%761/keys', '/v1/keys/', '/V1/KEYS/', '/v1/keys%2F', '/v1/keys;x', '/v1/keys?x=1']) {
      for (const method of ['GET', 'POST']) {
        const res = await send(method, path);
        expect([401, 404], `${method} ${path}`).to.include(res.status);
        await res.arrayBuffer();
      }
    }
  });

  it('counts requests to any casing against the caller\'s rate limit', async function () {
    const created = await fetch(`${w.url}/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': w.adminKey },
      body: JSON.stringify({ name: 'limited', role: 'admin', rate_limit: 3 }),
    });
    expect(created.status).to.equal(201);
    const { key } = (await created.json()) as { key: string };
    const statuses: number[] = [];
    for (const path of ['/V1/KEYS', '/V1/Keys', '/v1/KEYS', '/V1/AUTH/WHOAMI', '/v1/keys']) {
      const res = await send('GET', path, { 'x-api-key': key });
      statuses.push(res.status);
      await res.arrayBuffer();
    }
    expect(statuses).to.deep.equal([404, 404, 404, 429, 429]);
  });
});
