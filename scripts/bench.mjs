#!/usr/bin/env node
// `npm run bench [-- NAME ...]`: builds, then runs each bench/NAME.ts module's run() in this order.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');
process.chdir(root);
process.env.WARDEN_LOG_LEVEL ??= 'silent';
const ORDER = ['http', 'scanning', 'models', 'proxy', 'policies', 'fanout', 'analytics'];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ORDER;
try {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
} catch {
  console.error('warning: the TypeScript build reported errors; benchmarking what was emitted');
}
console.log(`# Warden benchmarks, ${new Date().toISOString()}, node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
for (const name of wanted) {
  const file = resolve('dist/bench', `${name}.js`);
  if (!existsSync(file)) {
    console.log(`\n(bench ${name}: not present)`);
    continue;
  }
  const mod = await import(pathToFileURL(file).href);
  await mod.run();
}
process.exit(0);
