import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { pluginConfigOf } from '../../src/scan-service/plugin-config.js';

/** security.input.scan_system_turns and security.output.link_allowlist (issue 13). */

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ env });
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config: security.input and security.output', () => {
  it('defaults: system turns not scanned, no host allowed to carry data in output links', () => {
    const { config } = loadConfig({ env: {} });
    expect(config.security.input).to.deep.equal({ scan_system_turns: false, undecodable_content: 'block' });
    expect(config.security.output).to.deep.equal({ link_allowlist: [] });
    expect(pluginConfigOf(config)['exfil-links']).to.deep.equal({ link_allowlist: [] });
  });

  it('takes valid values, and hands the allow list to the exfil-links plugin (with any it has of its own)', () => {
    const { config } = loadConfig({
      env: { WARDEN_SECURITY__INPUT__SCAN_SYSTEM_TURNS: 'true', WARDEN_SECURITY__OUTPUT__LINK_ALLOWLIST: '[stats.corp.example, "*.cdn.example"]', WARDEN_SCANNING__PLUGINS: '{exfil-links: {link_allowlist: [x.example]}, pii: {a: 1}}' },
    });
    expect(config.security.input.scan_system_turns).to.equal(true);
    expect(loadConfig({ env: { WARDEN_SECURITY__INPUT__UNDECODABLE_CONTENT: 'flag' } }).config.security.input.undecodable_content).to.equal('flag');
    expect(config.security.output.link_allowlist).to.deep.equal(['stats.corp.example', '*.cdn.example']);
    expect(pluginConfigOf(config)).to.deep.equal({ pii: { a: 1 }, 'exfil-links': { link_allowlist: ['stats.corp.example', '*.cdn.example', 'x.example'] } });
  });

  it('names the key, the value and what was expected for bad values', () => {
    expect(problems({ WARDEN_SECURITY__INPUT__SCAN_SYSTEM_TURNS: 'sometimes' })).to.deep.equal(['security.input.scan_system_turns = "sometimes": expected a value that is boolean (from environment variable WARDEN_SECURITY__INPUT__SCAN_SYSTEM_TURNS)']);
    // Issue 23: what a payload that is not text does.
    expect(problems({ WARDEN_SECURITY__INPUT__UNDECODABLE_CONTENT: 'skip' })[0]).to.match(/^security\.input\.undecodable_content = "skip": expected .*block.*flag/);
    expect(problems({ WARDEN_SECURITY__OUTPUT__LINK_ALLOWLIST: 'corp.example' })[0]).to.equal('security.output.link_allowlist = "corp.example": expected a value that is array (from environment variable WARDEN_SECURITY__OUTPUT__LINK_ALLOWLIST)');
    const url = problems({ WARDEN_SECURITY__OUTPUT__LINK_ALLOWLIST: '["https://corp.example/"]' });
    expect(url[0]).to.match(/^security\.output\.link_allowlist\[0\] = "https:\/\/corp\.example\/": expected a value that /);
    expect(problems({ WARDEN_SECURITY__OUTPUT__LINK_ALLOWLIST: '[""]' })[0]).to.match(/^security\.output\.link_allowlist\[0\] = "": expected/);
    expect(problems({ WARDEN_SECURITY__OUTPUT__LINKS: '[a.example]' })[0]).to.match(/^unknown key "security\.output\.links"/);
  });
});
