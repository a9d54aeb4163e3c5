import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import type { EventEnvelope } from '../../src/events/types.js';
import { startServer } from '../../src/server.js';
import { storageBackendOf } from '../../src/storage/index.js';
import { PROJECT_ROOT } from '../../src/version.js';
import { runCli, spawnWarden } from '../../harness/warden.js';

/** Directories made by file(), removed when the whole run ends. */
const madeDirs: string[] = [];
after(() => {
  for (const d of madeDirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function file(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'warden-config-'));
  madeDirs.push(dir);
  const path = join(dir, 'warden.yaml');
  writeFileSync(path, text);
  return path;
}

function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('configuration', function () {
  it('starts from embedded defaults with no file at all', function () {
    const { config, path } = loadConfig({ env: {} });
    expect(path).to.equal(null);
    expect(config.server).to.include({ host: '127.0.0.1', port: 8080 });
    expect(config.security).to.include({ rate_limit: 60, mode: 'enforce', block_severity: 'high', fail_mode: 'closed', rate_limit_fail_mode: 'open' });
    expect(config.events.transport).to.equal('memory');
    expect(config.redis.url).to.equal(undefined);
    expect(config.providers).to.deep.equal([]);
    expect(config.limits).to.include({ max_body_bytes: 1048576, batch_max_items: 1000 });
  });

  it('reads YAML and lets WARDEN_<SECTION>__<KEY> override any key, parsed to its type', function () {
    const path = file('security:\n  rate_limit: 30\n  mode: monitor\nserver:\n  port: 9000\n');
    const { config } = loadConfig({ path, env: { WARDEN_SECURITY__RATE_LIMIT: '120', WARDEN_SERVER__HOST: '0.0.0.0', WARDEN_KAFKA__BROKERS: '[a:9092, b:9092]' } });
    expect(config.security.rate_limit).to.equal(120);
    expect(config.security.mode).to.equal('monitor');
    expect(config.server).to.include({ host: '0.0.0.0', port: 9000 });
    expect(config.kafka.brokers).to.deep.equal(['a:9092', 'b:9092']);
  });

  it('WARDEN_CONFIG names the file', function () {
    const path = file('security:\n  rate_limit: 7\n');
    expect(loadConfig({ env: { WARDEN_CONFIG: path } }).config.security.rate_limit).to.equal(7);
  });

  it('resolves env:NAME secrets and names the key when the variable is missing', function () {
    const path = file('auth:\n  jwt:\n    secret: env:JWT_SECRET\n');
    const secret = 'x'.repeat(40);
    expect(loadConfig({ path, env: { JWT_SECRET: secret } }).config.auth.jwt.secret).to.equal(secret);
    expect(problems(() => loadConfig({ path, env: {} }))).to.deep.equal(['auth.jwt.secret = "env:JWT_SECRET": environment variable JWT_SECRET is not set']);
  });

  it('names the key, the value and what was expected for every bad value', function () {
    const path = file(['security:', '  rate_limit: lots', '  mode: block', '  ratelimit: 5', 'server:', '  port: 70000', 'providers:', '  - name: a', '    type: gemini', '    base_url: http://x'].join('\n'));
    const found = problems(() => loadConfig({ path, env: {} }));
    expect(found).to.include('security.rate_limit = "lots": expected a value that is integer');
    expect(found).to.include('security.mode = "block": expected one of enforce, monitor');
    expect(found.find((p) => p.startsWith('unknown key "security.ratelimit"'))).to.include('rate_limit');
    expect(found).to.include('server.port = 70000: expected a value that is <= 65535');
    expect(found).to.include('providers[0].type = "gemini": expected one of openai, azure_openai, anthropic');
  });

  it('never prints secret values in errors', function () {
    const path = file('auth:\n  jwt:\n    secret: too-short-but-secret\n');
    const found = problems(() => loadConfig({ path, env: {} }));
    expect(found.join('\n')).to.include('auth.jwt.secret').and.not.include('too-short-but-secret');
  });

  it('rejects an unknown environment override, YAML syntax errors with a line, a non-mapping file and a missing file', function () {
    expect(problems(() => loadConfig({ env: { WARDEN_SECURITY__RATE_LMIT: '5' } }))[0]).to.match(/^unknown key "security.rate_lmit"/);
    expect(problems(() => loadConfig({ env: { WARDEN_SECURTY__RATE_LIMIT: '5' } }))[0]).to.match(/^unknown key "securty.rate_limit" \(from environment variable WARDEN_SECURTY__RATE_LIMIT\)/);
    expect(problems(() => loadConfig({ path: file('security:\n  rate_limit: [1,\n'), env: {} }))[0]).to.match(/^YAML syntax error at line \d+/);
    expect(problems(() => loadConfig({ path: file('- a\n- b\n'), env: {} }))[0]).to.match(/top level of the file must be a mapping/);
    expect(problems(() => loadConfig({ path: '/nonexistent/warden.yaml', env: {} }))[0]).to.match(/does not exist/);
  });

  it('checks cross-key rules: RS256 needs a key, duplicate users and providers', function () {
    expect(problems(() => loadConfig({ raw: { auth: { jwt: { algorithm: 'RS256' } } }, env: {} }))[0]).to.match(/^auth.jwt.algorithm = "RS256": expected auth.jwt.public_key/);
    const dupes = problems(() =>
      loadConfig({ raw: { providers: [{ name: 'a', type: 'openai', base_url: 'http://x' }, { name: 'a', type: 'openai', base_url: 'http://y' }] }, env: {} }),
    );
    expect(dupes[0]).to.equal('providers[1].name = "a": expected unique provider names');
  });

  it('storage: SQLite in ./var/warden.db by default, Redis when redis.url is set; wrong values and combinations name the key', function () {
    const { config } = loadConfig({ env: {} });
    expect(config.storage.sqlite_path).to.equal('./var/warden.db');
    expect(storageBackendOf(config)).to.equal('sqlite');
    expect(storageBackendOf(loadConfig({ raw: { redis: { url: 'redis://127.0.0.1:6379' } }, env: {} }).config)).to.equal('redis');
    expect(storageBackendOf(loadConfig({ env: { WARDEN_STORAGE__BACKEND: 'memory' } }).config)).to.equal('memory');
    expect(problems(() => loadConfig({ raw: { storage: { backend: 'disk' } }, env: {} }))[0]).to.match(/^storage.backend = "disk": expected one of/);
    expect(problems(() => loadConfig({ raw: { storage: { sqlite_path: '' } }, env: {} }))[0]).to.match(/^storage.sqlite_path/);
    expect(problems(() => loadConfig({ raw: { storage: { backend: 'redis' } }, env: {} }))).to.deep.equal(['storage.backend = "redis": expected redis.url to be set']);
    expect(problems(() => loadConfig({ raw: { storage: { backend: 'sqlite' }, redis: { url: 'redis://127.0.0.1:6379' } }, env: {} }))[0]).to.match(/^storage.backend = "sqlite" but redis.url is set/);
  });

  it('examples/warden.yaml, the documented example, is valid', function () {
    const { config } = loadConfig({ path: join(PROJECT_ROOT, 'examples', 'warden.yaml'), env: { WARDEN_JWT_SECRET: 'x'.repeat(40), WARDEN_ADMIN_PASSWORD_HASH: 'scrypt$16384$8$1$abc$def' } });
    expect(config.auth.users[0]!.role).to.equal('admin');
  });

  it('announces every reload with system_status: applied as config_reloaded, refused as degraded', async function () {
    const base = 'server:\n  port: 0\nstorage:\n  backend: memory\nauth:\n  jwt:\n    secret: ' + 'x'.repeat(40) + '\n';
    const path = file(base);
    const server = await startServer({ config: loadConfig({ path, env: {} }).config, configPath: path, announce: () => undefined, watchConfig: false });
    try {
      const seen: EventEnvelope[] = [];
      server.services.events.subscribe((e) => seen.push(e));
      writeFileSync(path, base + 'security:\n  rate_limit: 5\n');
      expect(await server.reload()).to.deep.equal({ ok: true });
      writeFileSync(path, base + 'security:\n  rate_limit: -5\n');
      expect((await server.reload()).ok).to.equal(false);
      const statuses = seen.filter((e) => e.type === 'system_status').map((e) => [e.data.status, String(e.data.detail)]);
      expect(statuses.map(([s]) => s)).to.deep.equal(['config_reloaded', 'degraded']);
      expect(statuses[1]![1]).to.include('security.rate_limit = -5');
      expect(server.services.config().security.rate_limit).to.equal(5);
    } finally {
      await server.close();
    }
  });

  describe('CLI', function () {
    it('`warden config check` says OK or lists the problems and exits 2', async function () {
      const ok = await runCli(['config', 'check', '--config', file('security:\n  rate_limit: 10\n')]);
      expect(ok.code).to.equal(0);
      expect(ok.stdout).to.match(/configuration OK/);
      const bad = await runCli(['config', 'check', '--config', file('security:\n  rate_limit: 0\n')]);
      expect(bad.code).to.equal(2);
      expect(bad.stderr).to.include('security.rate_limit = 0: expected a value that is >= 1');
    });

    it('`warden serve` with a bad config fails start-up with a message that names the key', async function () {
      const res = await runCli(['serve', '--config', file('server:\n  port: "eighty"\n')]);
      expect(res.code).to.equal(2);
      expect(res.stderr).to.include('server.port = "eighty"');
    });

    it('`warden hash-password` prints a scrypt hash usable in auth.users', async function () {
      const res = await runCli(['hash-password'], { input: 'a long password\n' });
      expect(res.code).to.equal(0);
      expect(res.stdout.trim()).to.match(/^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
      expect((await runCli(['hash-password'], { input: '' })).code).to.equal(1);
    });

    it('`warden keys` explains what it needs on the memory store without --url', async function () {
      // (Without any configuration it works on ./var/warden.db: test/cli/db.test.ts.)
      const res = await runCli(['keys', 'list'], { env: { WARDEN_STORAGE__BACKEND: 'memory' } });
      expect(res.code).to.equal(1);
      expect(res.stderr).to.match(/--url/);
    });

    it('reloads on SIGHUP: a good change applies, a bad one keeps the running config and says why', async function () {
      const w = await spawnWarden({ security: { rate_limit: 11 } }, { WARDEN_BOOTSTRAP_KEY: 'svc_sighup_test_key_000000000000000' });
      try {
        const settings = async () => ((await (await fetch(`${w.url}/status`)).json()) as { settings: { rate_limit: number } }).settings.rate_limit;
        expect(await settings()).to.equal(11);
        writeFileSync(w.configPath, 'server:\n  port: 0\nsecurity:\n  rate_limit: 22\n');
        w.proc.kill('SIGHUP');
        await waitFor(async () => (await settings()) === 22);
        writeFileSync(w.configPath, 'server:\n  port: 0\nsecurity:\n  rate_limit: -1\n');
        w.proc.kill('SIGHUP');
        await waitFor(async () => w.stderr.join('').includes('configuration reload failed'));
        expect(w.stderr.join('')).to.include('security.rate_limit = -1');
        expect(await settings()).to.equal(22);
        const res = await fetch(`${w.url}/v1/auth/whoami`, { headers: { 'X-API-Key': 'svc_sighup_test_key_000000000000000' } });
        expect(res.headers.get('ratelimit-limit')).to.equal('22');
      } finally {
        expect(await w.stop()).to.equal(0);
      }
    });

    it('reloads when the file changes, without a signal', async function () {
      const w = await spawnWarden({ security: { rate_limit: 13 } });
      try {
        writeFileSync(w.configPath, 'server:\n  port: 0\nsecurity:\n  rate_limit: 31\n');
        await waitFor(async () => ((await (await fetch(`${w.url}/status`)).json()) as { settings: { rate_limit: number } }).settings.rate_limit === 31);
      } finally {
        await w.stop();
      }
    });

    it('prints a bootstrap admin key once when none is configured, and the key works', async function () {
      const w = await spawnWarden({});
      try {
        const line = w.stdout.join('');
        const key = /Bootstrap admin API key \(shown once, store it now\): (svc_\S+)/.exec(line)?.[1];
        expect(key).to.be.a('string');
        expect((await fetch(`${w.url}/v1/keys`, { headers: { 'X-API-Key': key! } })).status).to.equal(200);
      } finally {
        await w.stop();
      }
    });
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('condition not met in time');
}
