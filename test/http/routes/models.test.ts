import { expect } from 'chai';
import OpenAI from 'openai';
import { FakeUpstream } from '../../../harness/fake-upstream.js';
import { startWarden, type InProcessWarden } from '../../../harness/warden.js';

/** GET /v1/models as the official OpenAI SDK calls it. */
describe('GET /v1/models (OpenAI SDK client.models)', function () {
  this.timeout(30_000);
  let up: FakeUpstream;
  let w: InProcessWarden;

  before(async () => {
    up = await FakeUpstream.start({ models: ['fake-model'] });
    w = await startWarden({
      providers: [
        { name: 'second', type: 'openai', base_url: up.url, models: ['gpt-4o', 'fake-*'], priority: 20 },
        { name: 'first', type: 'openai', base_url: up.url, models: ['gpt-4o', 'gpt-4o-mini', 'claude-*'], priority: 10 },
        { name: 'local', type: 'openai', base_url: up.url, models: ['*'], priority: 30 },
        { name: 'claude', type: 'anthropic', base_url: up.url, models: ['claude-sonnet-4'], priority: 40 },
      ],
      security: { rate_limit: 1000 },
    });
  });
  after(async () => {
    await w.close();
    await up.close();
  });

  const key = async (role: string) => {
    const made = await fetch(`${w.url}/v1/keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': w.adminKey }, body: JSON.stringify({ name: role, role }) });
    return ((await made.json()) as { key: string }).key;
  };

  it('client.models.list() returns every model once, owned by the provider tried first: literal names, and globs expanded against the upstream listing', async function () {
    const client = new OpenAI({ apiKey: await key('service'), baseURL: `${w.url}/v1`, maxRetries: 0 });
    const models = [];
    for await (const m of client.models.list()) models.push(m);
    expect(models.map((m) => [m.id, m.owned_by])).to.deep.equal([
      ['gpt-4o', 'first'],
      ['gpt-4o-mini', 'first'],
      ['fake-model', 'second'], // fake-* (and local's *) against the upstream's listing; claude-* matches nothing listed
      ['claude-sonnet-4', 'claude'],
    ]);
    for (const m of models) {
      expect(m.object).to.equal('model');
      expect(m.created).to.equal(Math.floor(w.server.services.startedAt.getTime() / 1000));
    }
  });

  it('client.models.retrieve() finds a listed model (literal or by glob) and raises NotFoundError for one no provider lists', async function () {
    const client = new OpenAI({ apiKey: w.adminKey, baseURL: `${w.url}/v1`, maxRetries: 0 });
    expect(await client.models.retrieve('gpt-4o-mini')).to.deep.include({ id: 'gpt-4o-mini', object: 'model', owned_by: 'first' });
    expect(await client.models.retrieve('fake-model')).to.deep.include({ id: 'fake-model', object: 'model', owned_by: 'second' });
    let error: unknown;
    try {
      await client.models.retrieve('claude-3-opus'); // claude-* would route it, but the upstream does not list it
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).to.equal('model_not_found');
  });

  it('needs a credential (401) and a role that may use the chat API (analyst: 403)', async function () {
    expect((await fetch(`${w.url}/v1/models`)).status).to.equal(401);
    const analyst = new OpenAI({ apiKey: await key('analyst'), baseURL: `${w.url}/v1`, maxRetries: 0 });
    let error: unknown;
    try {
      await analyst.models.list();
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(OpenAI.PermissionDeniedError);
  });

  it('is in /openapi.json', async function () {
    const spec = (await (await fetch(`${w.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(spec.paths).to.include.keys('/v1/models', '/v1/models/{model}');
  });
});
