import { expect } from 'chai';
import { REDIS_URL, redisForSuite } from '../../harness/redis.js';
import { startWarden, type InProcessWarden } from '../../harness/warden.js';

/** Policies on two instances sharing Redis: a key's policy and a PUT /v1/settings change made on one apply on the other. */
describe('policies across instances (Redis)', function () {
  this.timeout(60_000);
  let a: InProcessWarden;
  let b: InProcessWarden;
  let suite: Awaited<ReturnType<typeof redisForSuite>>;
  const ADMIN = 'svc_policy_cluster_admin_key_00000000000';
  const IBAN = 'DE89 3704 0044 0532 0130 00';
  const call = async (w: InProcessWarden, method: string, path: string, body?: unknown, key = ADMIN) => {
    const r = await fetch(w.url + path, { method, headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body !== undefined ? JSON.stringify(body) : undefined });
    return { status: r.status, body: (await r.json()) as any };
  };
  const until = async (pred: () => Promise<boolean>) => {
    for (let i = 0; i < 100; i++) {
      if (await pred()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('condition not reached');
  };

  before(async () => {
    suite = await redisForSuite('policy-cluster');
    const cfg = {
      redis: { url: REDIS_URL, key_prefix: suite.prefix },
      auth: { bootstrap_key: ADMIN },
      security: { rate_limit: 10000 },
      scanning: { workers: 1, enabled_plugins: ['rules', 'pii'] },
      policies: { banking: { rag: { actions: { pii_exposure: 'allow' } } } },
    };
    a = await startWarden(cfg);
    b = await startWarden(cfg);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await suite?.cleanup();
  });

  it('a key made on A with a policy gets it on B; a policy change by PUT /v1/settings on A applies on B', async () => {
    const made = await call(a, 'POST', '/v1/keys', { name: 'agent', role: 'service', policy: 'banking' });
    expect(made.status).to.equal(201);
    const key = made.body.key as string;
    const scanOnB = async () => (await call(b, 'POST', '/v1/scan', { input: `Paid to ${IBAN}`, source: 'rag' }, key)).body as { verdict: string; policy: string };
    expect(await scanOnB()).to.include({ verdict: 'allow', policy: 'banking' });
    const put = await call(a, 'PUT', '/v1/settings', { policies: { banking: { rag: { actions: { pii_exposure: 'block' } } } } });
    expect(put.status).to.equal(200);
    await until(async () => (await scanOnB()).verdict === 'block');
    expect((await call(b, 'GET', '/v1/settings')).body.overrides.policies).to.deep.equal({ banking: { rag: { actions: { pii_exposure: 'block' } } } });
    await call(a, 'PUT', '/v1/settings', { policies: null });
    await until(async () => (await scanOnB()).verdict === 'allow');
  });
});
