import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { CLI } from '../../harness/warden.js';
import { PROJECT_ROOT } from '../../src/version.js';

/** The default store lives in var/ (ignored by git), and an old ./data/warden.db is moved there once (issue 27, item 7). */
describe('default SQLite store: ./var/warden.db, the old ./data/warden.db moved once', function () {
  this.timeout(90_000);
  const dir = mkdtempSync(join(tmpdir(), 'warden-legacy-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { PATH: process.env.PATH!, WARDEN_LOG_LEVEL: 'info' };

  function cli(args: string[], extra: Record<string, string> = {}) {
    return spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: { ...env, ...extra }, encoding: 'utf8', timeout: 30_000 });
  }

  /** `warden serve` with no configuration in `dir`; resolves with its URL and everything it logged up to ready. */
  async function serve(): Promise<{ url: string; log: string; stop(): Promise<void> }> {
    const proc = spawn(process.execPath, [CLI, 'serve'], { cwd: dir, env: { ...env, WARDEN_SERVER__PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not ready:\n${log}`)), 30_000);
      const seen = (d: Buffer) => {
        log += d.toString();
        const m = /"url":"([^"]+)".*"msg":"warden ready"/.exec(log);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      proc.stdout.on('data', seen);
      proc.stderr.on('data', seen);
      proc.on('exit', (code) => reject(new Error(`exited ${code}:\n${log}`)));
    });
    return { url, log, stop: () => new Promise((r) => (proc.once('exit', () => r()), proc.kill('SIGTERM'))) };
  }

  it('a key made in the old place works after the move; the log says where the store went; the next start moves nothing', async () => {
    const made = cli(['keys', 'create', '--name', 'old', '--role', 'admin'], { WARDEN_STORAGE__SQLITE_PATH: './data/warden.db' });
    expect(made.status, made.stderr).to.equal(0);
    const key = (JSON.parse(made.stdout) as { key: string }).key;
    expect(existsSync(join(dir, 'data', 'warden.db'))).to.equal(true);

    const first = await serve();
    try {
      expect(first.log).to.include('moved the SQLite store from data/warden.db to var/warden.db');
      expect(existsSync(join(dir, 'data', 'warden.db'))).to.equal(false);
      expect(existsSync(join(dir, 'var', 'warden.db'))).to.equal(true);
      expect((await fetch(`${first.url}/v1/auth/whoami`, { headers: { 'X-API-Key': key } })).status).to.equal(200);
    } finally {
      await first.stop();
    }
    const second = await serve();
    await second.stop();
    expect(second.log).to.not.include('moved the SQLite store');
  });

  it('var/ is ignored by git, and data/ keeps only tracked files', () => {
    const r = spawnSync('git', ['check-ignore', '-q', 'var/warden.db'], { cwd: PROJECT_ROOT });
    expect(r.status, 'git check-ignore var/warden.db').to.equal(0);
  });
});
