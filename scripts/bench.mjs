#!/usr/bin/env node
// `npm run bench [-- NAME ...]`: builds, then runs each bench/NAME.ts module's run() in this order.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
process.chdir(root);
process.env.WARDEN_LOG_LEVEL ??= 'silent';
const ORDER = ['http', 'scanning', 'scanning-ab', 'models', 'proxy', 'policies', 'fanout', 'analytics', 'jobs'];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ORDER;
const os = await import('node:os');
// Figures taken on a busy machine measure the contention, not Warden: the load average is printed
// at the start and the end, and a run that started above LOAD_LIMIT is marked not valid (the end
// figure includes the bench's own threads, so it is printed for the record, not judged).
const LOAD_LIMIT = 1.5;
const loadAt = (when) => {
  const [one, five] = os.loadavg();
  console.log(`# load average at ${when}: ${one.toFixed(2)} (1 min), ${five.toFixed(2)} (5 min)`);
  return one;
};
console.log(`# Warden benchmarks, ${new Date().toISOString()}, node ${process.version}, ${os.cpus().length} cores`);
const startLoad = loadAt('start');
try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
} catch {
  console.error('warning: the TypeScript build reported errors; benchmarking what was emitted');
}
for (const name of wanted) {
  const file = resolve('dist/bench', `${name}.js`);
  if (!existsSync(file)) {
    console.log(`\n(bench ${name}: not present)`);
    continue;
  }
  const mod = await import(pathToFileURL(file).href);
  await mod.run();
}
loadAt('end');
if (startLoad > LOAD_LIMIT) {
  console.log(`# NOT VALID: the load average exceeded ${LOAD_LIMIT}; something else was running. Measure on a quiet machine.`);
}
process.exit(0);
