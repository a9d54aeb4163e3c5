import { writeFileSync } from 'node:fs';
import { expect } from 'chai';
import OpenAI from 'openai';
import { stringify } from 'yaml';
import { FakeUpstream } from '../../harness/fake-upstream.js';
import { spawnWarden, type WardenProcess } from '../../harness/warden.js';

/** A provider added to the configuration file of a running server is used without a restart (issue 27, item 9). */
describe('providers added at run time (configuration file reload, no restart)', function () {
  this.timeout(120_000);
  const admin = 'svc_runtime_providers_admin_00000000000';
  let up: FakeUpstream;
  let w: WardenProcess;
  before(async () => {
    up = await FakeUpstream.start({ models: ['fake-model'] });
    w = await spawnWarden({}, { WARDEN_BOOTSTRAP_KEY: admin }, 60_000);
  });
  after(async () => {
    await w.stop();
    await up.close();
  });

  it('a server started with no provider serves one as soon as the file names it: same process, models listed, chat answered', async () => {
    const client = new OpenAI({ apiKey: admin, baseURL: `${w.url}/v1`, maxRetries: 0 });
    const pid = w.proc.pid;
    const before = await fetch(`${w.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': admin }, body: JSON.stringify({ model: 'fake-model', messages: [{ role: 'user', content: 'hi' }] }) });
    expect(before.status).to.not.equal(200);
    // The file spawnWarden wrote, with a provider added (what an operator does with an editor).
    writeFileSync(w.configPath, stringify({ server: { port: 0 }, storage: { backend: 'memory' }, providers: [{ name: 'added', type: 'openai', base_url: up.url, models: ['fake-*'] }] }));
    let ids: string[] = [];
    for (let i = 0; i < 200 && !ids.includes('fake-model'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      ids = [];
      for await (const m of client.models.list()) ids.push(m.id);
    }
    expect(ids).to.deep.equal(['fake-model']);
    const answer = await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'Say hi' }] });
    expect(answer.choices[0]!.message.content).to.equal('echo: Say hi');
    expect(up.chatRequests.length).to.equal(1);
    expect(w.proc.pid).to.equal(pid);
    expect(w.proc.exitCode).to.equal(null);
    expect(w.stderr.join('')).to.include('providers reloaded');
  });
});
