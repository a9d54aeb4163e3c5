import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../harness/warden.js';

/** `warden keys create --policy` and `warden keys set-policy` on the SQLite store (docs/policies.md). */
describe('warden keys with a policy (CLI, SQLite store)', function () {
  this.timeout(60_000);
  let dir: string;
  let config: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'warden-cli-policy-'));
    config = join(dir, 'warden.yaml');
    writeFileSync(config, `storage:\n  backend: sqlite\n  sqlite_path: ${join(dir, 'warden.db')}\npolicies:\n  support: {}\n  banking: {}\n`);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a key with a policy, changes and clears it, and refuses an unknown name saying which exist', async () => {
    const created = await runCli(['keys', 'create', '--config', config, '--name', 'bot', '--policy', 'support']);
    expect(created.code, created.stderr).to.equal(0);
    const key = JSON.parse(created.stdout) as { id: string; policy: string };
    expect(key.policy).to.equal('support');

    const bad = await runCli(['keys', 'create', '--config', config, '--name', 'bot2', '--policy', 'suport']);
    expect(bad.code).to.not.equal(0);
    expect(bad.stderr).to.include('--policy = "suport": no such policy; expected one of default, support, banking');

    const changed = await runCli(['keys', 'set-policy', key.id, 'banking', '--config', config]);
    expect(changed.code, changed.stderr).to.equal(0);
    expect((JSON.parse(changed.stdout) as { policy: string }).policy).to.equal('banking');
    const cleared = await runCli(['keys', 'set-policy', key.id, 'none', '--config', config]);
    expect((JSON.parse(cleared.stdout) as { policy: string | null }).policy).to.equal(null);
    const listed = JSON.parse((await runCli(['keys', 'list', '--config', config])).stdout) as { id: string; policy: string | null }[];
    expect(listed.map((k) => [k.id, k.policy])).to.deep.equal([[key.id, null]]);
  });
});
