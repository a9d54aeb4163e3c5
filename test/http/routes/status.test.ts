import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { FakeUpstream } from '../../../harness/fake-upstream.js';
import { spawnWarden, type WardenProcess } from '../../../harness/warden.js';

/** GET /status tells the truth about the backends and the last reload, and keeps internals for authenticated callers (issue 27, item 5). */
describe('GET /status: the truth, and internals only with a credential', function () {
  this.timeout(120_000);
  const admin = 'svc_status_admin_0000000000000000000000';
  const scratch = mkdtempSync(join(tmpdir(), 'warden-status-'));
  const dbFile = join(scratch, 'store.db');
  let up: FakeUpstream;
  let w: WardenProcess;
  before(async () => {
    up = await FakeUpstream.start();
    w = await spawnWarden(
      { storage: { backend: 'sqlite', sqlite_path: dbFile }, providers: [{ name: 'secret-provider-name', type: 'openai', base_url: up.url, models: ['fake-*'] }] },
      { WARDEN_BOOTSTRAP_KEY: admin },
      60_000, // a loaded machine starts slowly
    );
  });
  after(async () => {
    await w.stop();
    await up.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  const status = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${w.url}/status`, { headers });
    return { code: res.status, text: await res.text() };
  };

  it('without a credential: open, the backends as they are (keys in SQLite), no file path, provider name, spend or counters', async () => {
    const { code, text } = await status();
    expect(code).to.equal(200);
    const body = JSON.parse(text) as Record<string, any>;
    expect(body.detail).to.equal('public');
    expect(body.backends).to.deep.include({ storage: 'sqlite', api_keys: 'sqlite' });
    expect(body.status).to.equal('ok');
    expect(body.last_reload_error).to.equal(null);
    expect(text).to.not.include(dbFile);
    expect(text).to.not.include(scratch);
    expect(text).to.not.include('secret-provider-name');
    expect(body).to.not.have.any.keys('spend', 'counters');
    expect(body.settings).to.include({ mode: 'enforce' }); // the policy a client is under stays open
    expect(body.storage).to.deep.include({ backend: 'sqlite', writes: 'ok' });
    expect(body.storage).to.not.have.key('file');
    expect(body.providers).to.not.have.key('providers');
  });

  it('with a credential: the file path, providers, spend and counters; a bad credential is a 401', async () => {
    const { code, text } = await status({ 'X-API-Key': admin });
    expect(code).to.equal(200);
    const body = JSON.parse(text) as Record<string, any>;
    expect(body.detail).to.equal('full');
    expect(body.storage.file).to.equal(dbFile);
    expect(body.providers.providers.map((p: { name: string }) => p.name)).to.deep.equal(['secret-provider-name']);
    expect(body).to.include.keys('spend', 'counters');
    expect((await status({ 'X-API-Key': 'svc_not_a_real_key_000000000000000' })).code).to.equal(401);
  });

  it('a refused configuration reload shows in last_reload_error (and clears once a good file is applied)', async () => {
    writeFileSync(w.configPath, 'server:\n  port: 0\nsecurity:\n  mode: sometimes\n');
    let body: Record<string, any> = {};
    for (let i = 0; i < 100; i++) {
      body = JSON.parse((await status()).text) as Record<string, any>;
      if (body.last_reload_error) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(body.last_reload_error).to.include('security.mode');
    expect(body.last_reload_error, 'the public view names the file, not its folder').to.include('warden.yaml').and.not.include(w.configPath);
    expect(body.status).to.equal('degraded');
    expect(body.config).to.deep.include({ status: 'degraded' });
    const full = JSON.parse((await status({ 'X-API-Key': admin })).text) as Record<string, any>;
    expect(full.config.last_reload_error).to.include('security.mode').and.include(w.configPath);
    expect(full.config.file).to.equal(w.configPath);
    writeFileSync(w.configPath, 'server:\n  port: 0\nsecurity:\n  mode: monitor\n');
    for (let i = 0; i < 100 && body.last_reload_error !== null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      body = JSON.parse((await status()).text) as Record<string, any>;
    }
    expect(body.last_reload_error).to.equal(null);
    expect(body.settings.mode).to.equal('monitor');
  });
});
