import { expect } from 'chai';
import { runCli } from '../../harness/warden.js';

/** A bad value from the environment names its variable, not "(embedded defaults)" (issue 27, item 6). */
describe('configuration errors name the environment variable a bad value came from', function () {
  this.timeout(30_000);

  it('`warden config check` with WARDEN_SERVER__PORT=not-a-port: exit 2, the variable named', async () => {
    const r = await runCli(['config', 'check'], { env: { WARDEN_SERVER__PORT: 'not-a-port' } });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.include('Invalid configuration (embedded defaults + environment WARDEN_SERVER__PORT)');
    expect(r.stderr).to.include('server.port = "not-a-port": expected a value that is integer (from environment variable WARDEN_SERVER__PORT)');
  });

  it('an unknown key set from the environment is named with its variable too', async () => {
    const r = await runCli(['config', 'check'], { env: { WARDEN_SECURITY__MODDE: 'monitor' } });
    expect(r.code).to.equal(2);
    expect(r.stderr).to.match(/unknown key "security\.modde".*\(from environment variable WARDEN_SECURITY__MODDE\)/);
  });
});
