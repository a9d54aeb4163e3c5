#!/usr/bin/env node
// `npm test`: prepares what the tests need, builds, lints the code and the shipped rules, runs every test.
// Usage: npm test [-- --grep PATTERN] [-- path/to/file.test.ts ...]
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
process.chdir(root);
const args = process.argv.slice(2);
const problems = [];

function fail(lines) {
  console.error(`\nnpm test cannot run:\n  - ${lines.join('\n  - ')}\n`);
  console.error('0 passed, 1 failed');
  process.exit(1);
}

function redisAnswers() {
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port: 6379 });
    const timer = setTimeout(() => (socket.destroy(), done(false)), 1000);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => (clearTimeout(timer), socket.destroy(), done(d.toString().startsWith('+PONG'))));
    socket.on('error', () => (clearTimeout(timer), done(false)));
  });
}

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

// 1. Redis on loopback: the Redis paths are tested against a real server.
if (!(await redisAnswers())) {
  if (!has('redis-server')) problems.push('Redis is not answering on 127.0.0.1:6379 and redis-server is not installed (apt-get install redis-server)');
  else {
    console.log('starting redis-server on 127.0.0.1:6379');
    spawnSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no'], { stdio: 'inherit' });
    for (let i = 0; i < 50 && !(await redisAnswers()); i++) await new Promise((r) => setTimeout(r, 100));
    if (!(await redisAnswers())) problems.push('redis-server was started but does not answer on 127.0.0.1:6379');
  }
}
// 2. Confluent's mock Kafka cluster (librdkafka) for the multi-instance event tests.
if (!existsSync('/usr/include/librdkafka/rdkafka_mock.h')) problems.push('librdkafka-dev is missing: the Kafka mock launcher needs /usr/include/librdkafka/rdkafka_mock.h (apt-get install librdkafka-dev)');
if (!has('gcc')) problems.push('gcc is missing: the Kafka mock launcher is compiled at test time (apt-get install gcc)');
// 3. Chromium for the documentation and dashboard tests.
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!existsSync(chromium)) problems.push(`Chromium is missing at ${chromium} (apt-get install chromium)`);
// 4. docker compose (v2 plugin or Debian's docker-compose) validates docker-compose.yml; no engine needed.
if (spawnSync('docker', ['compose', 'version']).status !== 0 && !has('docker-compose')) problems.push('neither "docker compose" nor docker-compose is installed: docker-compose.yml is validated with it (apt-get install docker-compose)');
if (!existsSync('node_modules')) problems.push('dependencies are not installed (npm ci)');
// 5. The SQLite module (the default store) is native: npm ci builds it from source when no prebuilt binary downloads.
else if (spawnSync(process.execPath, ['-e', 'new (require("better-sqlite3"))(":memory:").close()']).status !== 0) {
  problems.push('better-sqlite3 does not load: it builds from source during npm ci, which needs g++, make and python3 (apt-get install g++ make python3, then npm rebuild better-sqlite3)');
}
if (problems.length) fail(problems);

// 6. Build: type errors fail the run.
try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
} catch {
  fail(['the TypeScript build failed (see above)']);
}
// `npx warden` runs package.json's bin, which must be executable; tsc writes files without the
// bit, and whether npm ci sets it depends on the order of its install steps.
chmodSync('dist/src/cli/warden.js', 0o755);

// 6. ESLint (eslint.config.js: typescript-eslint's recommended rules and the layering rules of
// docs/architecture.md). Any finding fails the run. Skipped when only some test files are run.
if (!args.length) {
  const r = spawnSync(process.execPath, ['node_modules/eslint/bin/eslint.js', '--max-warnings', '0', '.'], { stdio: 'inherit' });
  if (r.status !== 0) fail(['eslint found problems (see above; `npm run lint` runs it alone)']);
}

// 7. Mocha over every compiled test whose source still exists: tsc never deletes the output of a
// moved or deleted test, and a stale copy would run (and count) twice. The shipped rules' own
// tests run once, in plugins/rules-content.test.ts (they also ran here through `warden rules test`,
// in test/scanning/rules.test.ts and in test/scanning/cli.test.ts: four times per npm test).
process.env.WARDEN_LOG_LEVEL ??= 'silent';
const { default: Mocha } = await import('mocha');
const grepAt = args.indexOf('--grep');
const grep = grepAt >= 0 ? args[grepAt + 1] : undefined;
const only = args.filter((a, i) => a !== '--grep' && args[i - 1] !== '--grep').map((a) => resolve(a.replace(/^(?!dist\/)/, 'dist/').replace(/\.ts$/, '.js')));
const mocha = new Mocha({ timeout: 30_000, reporter: 'spec', grep });
const files = [];
for (const dir of ['dist/test', 'dist/plugins']) {
  if (!existsSync(dir)) continue;
  for (const f of readdirSync(dir, { recursive: true })) {
    if (String(f).endsWith('.test.js') && existsSync(join(root, dir.slice('dist/'.length), String(f).replace(/\.js$/, '.ts')))) files.push(join(root, dir, String(f)));
  }
}
for (const f of files.sort()) if (!only.length || only.includes(f)) mocha.addFile(f);
await mocha.loadFilesAsync();
const runner = mocha.run(() => {
  const { passes = 0, failures = 0, pending = 0 } = runner.stats ?? {};
  console.log(`\n${passes} passed, ${failures} failed${pending ? `, ${pending} skipped` : ''}`);
  process.exit(failures ? 1 : 0);
});
