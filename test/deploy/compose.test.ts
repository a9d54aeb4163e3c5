import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import { PROJECT_ROOT } from '../../src/version.js';

/** `docker compose` (v2 plugin) where installed, else Debian's docker-compose; no engine needed for `config`. */
function compose(args: string[], cwd = PROJECT_ROOT): { status: number | null; stdout: string; stderr: string } {
  const v2 = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
  const [cmd, pre] = v2.status === 0 ? ['docker', ['compose']] : ['docker-compose', []];
  const r = spawnSync(cmd, [...pre, ...args], { cwd, encoding: 'utf8' });
  if (r.error) throw new Error(`neither "docker compose" nor docker-compose is installed (apt-get install docker-compose): ${r.error.message}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('docker-compose.yml', function () {
  this.timeout(30_000);

  it('is accepted by docker compose config', function () {
    const r = compose(['config', '-q']);
    expect(r.status, r.stderr).to.equal(0);
  });

  it('runs Kafka in KRaft mode, Redis, two Warden instances on a valid config using both, and a reverse proxy', function () {
    const r = compose(['config']);
    type Service = { environment?: Record<string, string | null>; healthcheck?: unknown; volumes?: string[] };
    const cfg = parse(r.stdout) as { services: Record<string, Service> };
    const services = Object.entries(cfg.services);
    const kafka = cfg.services.kafka;
    expect(JSON.stringify(kafka?.environment)).to.match(/KAFKA_PROCESS_ROLES/);
    expect(cfg.services.redis?.healthcheck).to.not.equal(undefined);
    expect(cfg.services.proxy?.healthcheck).to.not.equal(undefined);
    const wardens = services.filter(([, s]) => s.environment?.WARDEN_CONFIG);
    expect(wardens.map(([n]) => n)).to.have.length(2);
    const ids = new Set<string>();
    for (const [, s] of wardens) {
      expect(s.healthcheck, 'warden health check').to.not.equal(undefined);
      ids.add(String(s.environment!.WARDEN_SERVER__INSTANCE_ID));
      const mount = s.volumes!.find((v) => v.endsWith(`:${s.environment!.WARDEN_CONFIG}:ro`))!;
      const { config } = loadConfig({ path: mount.split(':')[0]!, env: { WARDEN_JWT_SECRET: 'x'.repeat(40), WARDEN_BOOTSTRAP_KEY: 'svc_' + 'k'.repeat(40) } });
      expect(config.events.transport).to.equal('kafka');
      expect(config.redis.url).to.match(/^redis:\/\/redis/);
      expect(config.kafka.brokers.join()).to.include('kafka');
    }
    expect(ids.size, 'distinct instance ids').to.equal(2);
    // Scan jobs across both instances: the job and event log topics exist, and the config uses them.
    const init = JSON.stringify((cfg.services as Record<string, { command?: unknown }>)['kafka-init']?.command);
    for (const topic of ['warden.scan-jobs', 'warden.scan-results', 'warden.scan-job-progress', 'warden.events']) expect(init).to.include(topic);
    expect(init).to.match(/--topic warden\.events --partitions 1 /);
    for (const [, s] of wardens) {
      const mount = s.volumes!.find((v) => v.endsWith(`:${s.environment!.WARDEN_CONFIG}:ro`))!;
      const { config } = loadConfig({ path: mount.split(':')[0]!, env: { WARDEN_JWT_SECRET: 'x'.repeat(40), WARDEN_BOOTSTRAP_KEY: 'svc_' + 'k'.repeat(40) } });
      expect(config.jobs.queue).to.equal('kafka');
      expect(s.volumes!.some((v) => v.includes(`:${config.jobs.files_dir}`))).to.equal(true);
    }
    expect(readFileSync(join(PROJECT_ROOT, 'deploy', 'nginx.conf'), 'utf8')).to.match(/proxy_set_header\s+Upgrade/);
  });

  it('is refused when broken (the check can fail)', function () {
    const dir = mkdtempSync(join(tmpdir(), 'compose-'));
    writeFileSync(join(dir, 'docker-compose.yml'), 'services:\n  warden:\n    ports: "not-a-list"\n    image: 12\n');
    expect(compose(['config', '-q'], dir).status).to.not.equal(0);
  });
});
