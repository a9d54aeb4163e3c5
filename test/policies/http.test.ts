import { expect } from 'chai';
import { SignJWT } from 'jose';
import OpenAI from 'openai';
import type { EventEnvelope } from '../../src/events/types.js';
import { FakeUpstream } from '../../harness/fake-upstream.js';
import { HS_SECRET, startWarden, type InProcessWarden } from '../../harness/warden.js';

/**
 * Policies through the real HTTP API and the official openai client: per-key verdicts, the
 * banking agent's tool output, redaction before upstream and restoration after, policy changes
 * by PUT /v1/settings and by key, and the bad inputs (docs/policies.md).
 */
const EMAIL = 'jane.doe@acme-mail.com';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const IBAN2 = 'GB82 WEST 1234 5698 7654 32';

/** A banking agent's turn: the tool returned the account's transactions. */
const bankingTurn = (): OpenAI.Chat.ChatCompletionMessageParam[] => [
  { role: 'user', content: 'List my last transactions.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'transactions', arguments: '{"limit":2}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: `date,amount,counterparty\n2026-11-02,-42.10,${IBAN}\n2026-11-05,1200.00,${IBAN2}` },
];

const POLICIES = {
  banking: { description: 'banking agent: account data in tool results is its job', rag: { actions: { pii_exposure: 'allow' } } },
  strict: { description: 'support chat: account data in a tool result is a leak', rag: { actions: { pii_exposure: 'block' } } },
  support: { extends: 'strict', prompt: { actions: { pii_exposure: 'redact', secret_exposure: 'redact' } } },
  'banking-redacted': { rag: { actions: { pii_exposure: 'redact' } } },
};

describe('policies through the HTTP API and the openai client', function () {
  this.timeout(60_000);
  let up: FakeUpstream;
  let w: InProcessWarden;
  const events: EventEnvelope[] = [];
  const keys: Record<string, { id: string; key: string }> = {};
  const admin = (path: string, method = 'GET', body?: unknown) =>
    fetch(`${w.url}${path}`, { method, headers: { 'content-type': 'application/json', 'x-api-key': w.adminKey }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const client = (name: string) => new OpenAI({ apiKey: keys[name]!.key, baseURL: `${w.url}/v1`, maxRetries: 0 });
  const blocked = async (p: Promise<unknown>) => {
    try {
      await p;
    } catch (err) {
      expect(err).to.be.instanceOf(OpenAI.BadRequestError);
      return (err as InstanceType<typeof OpenAI.BadRequestError>).code;
    }
    return null;
  };

  before(async () => {
    up = await FakeUpstream.start({ models: ['fake-model'] });
    w = await startWarden({
      providers: [{ name: 'fake', type: 'openai', base_url: up.url, models: ['fake-*'], stream_idle_timeout_ms: 5000 }],
      security: { rate_limit: 10000, stream_chunk_chars: 16, stream_overlap_chars: 0 },
      // The rules and the data detectors only: what the classifier makes of IBAN-heavy text today
      // (it over-fires on it; issue 24) is not what this suite is about, which is what a policy
      // does with the PII findings. The e-mail kind is turned on for prompts (off by default).
      scanning: { workers: 1, enabled_plugins: ['rules', 'pii', 'secrets'], plugins: { pii: { prompt_kinds: ['card', 'iban', 'email'] } } },
      policies: POLICIES,
      policy_routing: { models: { 'fake-banking-agent': 'banking' } },
    });
    w.server.services.events.subscribe((e) => events.push(e));
    for (const [name, policy] of [['banking', 'banking'], ['strict', 'strict'], ['support', 'support'], ['plain', null], ['redacted', 'banking-redacted']] as const) {
      const r = await admin('/v1/keys', 'POST', { name, role: 'service', ...(policy ? { policy } : {}) });
      expect(r.status).to.equal(201);
      const body = (await r.json()) as { id: string; key: string; policy: string | null };
      expect(body.policy).to.equal(policy);
      keys[name] = { id: body.id, key: body.key };
    }
  });
  after(async () => {
    await w?.close();
    await up?.close();
  });
  beforeEach(() => {
    up.forbidden = [];
    up.behaviour = { kind: 'reply' };
  });

  it('two keys with different policies get different verdicts on the same request (/v1/scan), and the result names the policy', async () => {
    const scan = (name: string) =>
      fetch(`${w.url}/v1/scan`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': keys[name]!.key }, body: JSON.stringify({ input: `Account ${IBAN}`, source: 'rag' }) }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as { verdict: string; policy: string; policy_version: string; threats: { action_taken: string }[] } }),
      );
    const [banking, strict, plain] = await Promise.all([scan('banking'), scan('strict'), scan('plain')]);
    expect(banking.body).to.include({ verdict: 'allow', policy: 'banking' });
    expect(strict.body).to.include({ verdict: 'block', policy: 'strict' });
    expect(plain.body).to.include({ verdict: 'flag', policy: 'default' });
    expect(plain.body.threats[0]!.action_taken).to.equal('flagged');
    expect(new Set([banking.body.policy_version, strict.body.policy_version, plain.body.policy_version]).size).to.equal(3);
  });

  it('the banking agent\'s tool output with IBANs goes upstream under banking, is blocked under strict, and is flagged but forwarded under default', async () => {
    const before = up.chatRequests.length;
    const ok = await client('banking').chat.completions.create({ model: 'fake-model', messages: bankingTurn() });
    expect(ok.choices[0]!.message.content).to.equal('echo: List my last transactions.');
    expect(up.chatRequests).to.have.length(before + 1);
    expect(JSON.stringify(up.chatRequests.at(-1)!.body)).to.include(IBAN).and.include(IBAN2);

    expect(await blocked(client('strict').chat.completions.create({ model: 'fake-model', messages: bankingTurn() }))).to.equal('prompt_blocked');
    expect(up.chatRequests).to.have.length(before + 1);

    // No policy on the key: the built-in default flags PII in a tool result and forwards it (issue 24).
    const flaggedFrom = events.length;
    const fwd = await client('plain').chat.completions.create({ model: 'fake-model', messages: bankingTurn() });
    expect(fwd.choices[0]!.message.content).to.equal('echo: List my last transactions.');
    expect(up.chatRequests).to.have.length(before + 2);
    const threat = events.slice(flaggedFrom).find((e) => e.type === 'threat_detected' && e.data.rule_id === 'pii.iban');
    expect(threat?.data).to.include({ action_taken: 'flagged', source: 'rag', policy: 'default', caller: keys.plain!.id });
    expect(threat?.data.policy_version).to.match(/^[0-9a-f]{12}$/);
    const rec = (await (await admin(`/v1/scans/${threat!.data.scan_id}`)).json()) as { verdict: string; policy: string };
    expect(rec).to.include({ verdict: 'flag', policy: 'default' });
    const metrics = await (await fetch(`${w.url}/metrics`)).text();
    expect(metrics).to.match(/warden_policy_scans_total\{[^}]*policy="default"[^}]*policy_version="[0-9a-f]{12}"[^}]*verdict="flag"/);
  });

  it('a model pin applies to a key that names no policy; the key\'s own policy wins over it', async () => {
    up.models.push('fake-banking-agent');
    const pinned = await client('plain').chat.completions.create({ model: 'fake-banking-agent', messages: bankingTurn() });
    expect(pinned.choices[0]!.message.content).to.equal('echo: List my last transactions.');
    expect(await blocked(client('strict').chat.completions.create({ model: 'fake-banking-agent', messages: bankingTurn() }))).to.equal('prompt_blocked');
  });

  it('a JWT carries its policy in the warden_policy claim', async () => {
    const jwt = w.server.services.config().auth.jwt;
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ role: 'service', warden_policy: 'strict' })
      .setProtectedHeader({ alg: 'HS256' }).setSubject('agent-7').setIssuer(jwt.issuer).setAudience(jwt.audience).setIssuedAt(now).setExpirationTime(now + 600)
      .sign(new TextEncoder().encode(HS_SECRET));
    const c = new OpenAI({ apiKey: token, baseURL: `${w.url}/v1`, maxRetries: 0 });
    expect(await blocked(c.chat.completions.create({ model: 'fake-model', messages: bankingTurn() }))).to.equal('prompt_blocked');
  });

  it('redacts an e-mail address and an IBAN before upstream (the upstream asserts it) and restores them in the plain answer', async () => {
    up.forbidden = [EMAIL, IBAN];
    const r = await client('support').chat.completions.create({
      model: 'fake-model',
      messages: [{ role: 'user', content: `Change my e-mail to ${EMAIL} and refund ${IBAN}; my e-mail is ${EMAIL}.` }],
    });
    expect(up.violations).to.deep.equal([]);
    expect(up.chatRequests.at(-1)!.body.messages[0].content).to.equal('Change my e-mail to [EMAIL_1] and refund [IBAN_1]; my e-mail is [EMAIL_1].');
    expect(r.choices[0]!.message.content).to.equal(`echo: Change my e-mail to ${EMAIL} and refund ${IBAN}; my e-mail is ${EMAIL}.`);
  });

  it('restores them in a streamed answer sent in 1-3 character chunks, and leaves an invented placeholder as it is', async () => {
    up.forbidden = [EMAIL, IBAN];
    up.behaviour = { kind: 'reply', piece_sizes: [1, 3, 2, 2, 1, 3] };
    const stream = await client('support').chat.completions.create({
      model: 'fake-model',
      stream: true,
      messages: [{ role: 'user', content: `Write to ${EMAIL} about ${IBAN} and [EMAIL_7].` }],
    });
    let text = '';
    let chunks = 0;
    for await (const c of stream) {
      text += c.choices[0]?.delta?.content ?? '';
      chunks++;
    }
    expect(up.violations).to.deep.equal([]);
    expect(chunks).to.be.greaterThan(3);
    expect(text).to.equal(`echo: Write to ${EMAIL} about ${IBAN} and [EMAIL_7].`);
  });

  it('redacts the IBANs of a tool result under a rag redact policy and restores the model\'s mention of them', async () => {
    up.forbidden = [IBAN, IBAN2];
    up.behaviour = { kind: 'reply', content: 'Your payments went to [IBAN_1] and [IBAN_2].' };
    const r = await client('redacted').chat.completions.create({ model: 'fake-model', messages: bankingTurn() });
    expect(up.violations).to.deep.equal([]);
    expect(up.chatRequests.at(-1)!.body.messages[2].content).to.equal('date,amount,counterparty\n2026-11-02,-42.10,[IBAN_1]\n2026-11-05,1200.00,[IBAN_2]');
    expect(r.choices[0]!.message.content).to.equal(`Your payments went to ${IBAN} and ${IBAN2}.`);
  });

  it('the scan APIs return the redacted text beside the verdict, and the record keeps only that', async () => {
    const r = await fetch(`${w.url}/v1/scan`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keys.support!.key },
      body: JSON.stringify({ input: `Reach me at ${EMAIL} or pay ${IBAN}.` }),
    });
    const body = (await r.json()) as { scan_id: string; verdict: string; redacted_text: string; threats: { action_taken: string; message: string }[] };
    expect(body.verdict).to.equal('flag');
    expect(body.redacted_text).to.equal('Reach me at [EMAIL_1] or pay [IBAN_1].');
    expect(body.threats.every((t) => t.action_taken === 'sanitized')).to.equal(true);
    const stored = await (await admin(`/v1/scans/${body.scan_id}`)).text();
    expect(stored).to.include('[EMAIL_1]').and.not.include(EMAIL).and.not.include(IBAN);
    const batch = (await (await fetch(`${w.url}/v1/scan/batch`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': keys.support!.key }, body: JSON.stringify({ inputs: [{ input: `mail ${EMAIL}` }] }) })).json()) as { results: { redacted_text: string }[] };
    expect(batch.results[0]!.redacted_text).to.equal('mail [EMAIL_1]');
  });

  it('GET /v1/policies lists the policies, the keys using each and each route\'s effective policy', async () => {
    const r = await admin('/v1/policies');
    expect(r.status).to.equal(200);
    const body = (await r.json()) as { policies: { name: string; version: string; extends: string | null; keys: { id: string }[] }[]; routes: { route: string; policy: string }[]; models: Record<string, string> };
    expect(body.policies.map((p) => p.name)).to.have.members(['default', 'banking', 'strict', 'support', 'banking-redacted']);
    expect(body.policies.find((p) => p.name === 'support')).to.deep.include({ extends: 'strict', keys: [{ id: keys.support!.id, name: 'support' }] });
    expect(body.routes.find((x) => x.route === '/v1/rag/scan')!.policy).to.equal('default');
    expect(body.models).to.deep.equal({ 'fake-banking-agent': 'banking' });
  });

  it('an admin changes a key\'s policy (PATCH /v1/keys/{id}); the next request follows it; an unknown name is refused', async () => {
    const bad = await admin(`/v1/keys/${keys.plain!.id}`, 'PATCH', { policy: 'bankng' });
    expect(bad.status).to.equal(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).to.equal('policy = "bankng": no such policy; expected one of default, banking, strict, support, banking-redacted');
    const badCreate = await admin('/v1/keys', 'POST', { name: 'x', role: 'service', policy: 'nope' });
    expect(badCreate.status).to.equal(400);
    expect(((await badCreate.json()) as { error: { message: string; param: string } }).error).to.include({ param: 'policy' });

    const ok = await admin(`/v1/keys/${keys.plain!.id}`, 'PATCH', { policy: 'strict' });
    expect(ok.status).to.equal(200);
    expect(((await ok.json()) as { policy: string }).policy).to.equal('strict');
    expect(await blocked(client('plain').chat.completions.create({ model: 'fake-model', messages: bankingTurn() }))).to.equal('prompt_blocked');
    expect((await admin(`/v1/keys/${keys.plain!.id}`, 'PATCH', { policy: null })).status).to.equal(200);
    const back = await client('plain').chat.completions.create({ model: 'fake-model', messages: bankingTurn() });
    expect(back.choices[0]!.message.content).to.equal('echo: List my last transactions.');
    // An analyst may read the policies, not change a key's.
    const analyst = await admin('/v1/keys', 'POST', { name: 'analyst', role: 'analyst' });
    const analystKey = ((await analyst.json()) as { key: string }).key;
    const denied = await fetch(`${w.url}/v1/keys/${keys.plain!.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-api-key': analystKey }, body: JSON.stringify({ policy: 'strict' }) });
    expect(denied.status).to.equal(403);
  });

  it('PUT /v1/settings changes the policies for the next request, announced with system_status; a bad change is refused and the running policies kept', async () => {
    expect(await blocked(client('strict').chat.completions.create({ model: 'fake-model', messages: bankingTurn() }))).to.equal('prompt_blocked');

    const from = events.length;
    const circular = await admin('/v1/settings', 'PUT', { policies: { ...POLICIES, strict: { extends: 'support' } } });
    expect(circular.status).to.equal(400);
    expect(((await circular.json()) as { error: { message: string } }).error.message).to.include('policies.strict.extends: circular: strict -> support -> strict');
    const unsupported = await admin('/v1/settings', 'PUT', { policies: { ...POLICIES, strict: { output: { actions: { pii: 'redact' } } } } });
    expect(unsupported.status).to.equal(400);
    expect(((await unsupported.json()) as { error: { message: string } }).error.message).to.include('policies.strict.output.actions.pii = "redact": the output target does not support redact');
    const orphan = await admin('/v1/settings', 'PUT', { policies: { banking: POLICIES.banking } });
    expect(orphan.status).to.equal(400);
    expect(((await orphan.json()) as { error: { message: string } }).error.message).to.include(`API key ${keys.strict!.id} (policy "strict")`);
    expect(await blocked(client('strict').chat.completions.create({ model: 'fake-model', messages: bankingTurn() }))).to.equal('prompt_blocked');
    expect(events.slice(from).filter((e) => e.type === 'system_status')).to.have.length(0);

    const put = await admin('/v1/settings', 'PUT', { policies: { ...POLICIES, strict: { rag: { actions: { pii_exposure: 'allow' } } } } });
    expect(put.status).to.equal(200);
    const announced = events.slice(from).find((e) => e.type === 'system_status');
    expect(announced?.data).to.include({ status: 'config_reloaded' });
    expect(String(announced?.data.detail)).to.include('policies=');
    const now = await client('strict').chat.completions.create({ model: 'fake-model', messages: bankingTurn() });
    expect(now.choices[0]!.message.content).to.equal('echo: List my last transactions.');

    expect((await admin('/v1/settings', 'PUT', { policies: null })).status).to.equal(200);
    expect(await blocked(client('strict').chat.completions.create({ model: 'fake-model', messages: bankingTurn() }))).to.equal('prompt_blocked');
  });
});
