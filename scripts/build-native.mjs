#!/usr/bin/env node
// npm install / npm ci: says, one line per native module, what was built and why (npm hides the
// dependencies' own build output, which for re2 and better-sqlite3 can be minutes of compiling),
// then builds Warden's own addons with node-gyp: native/text (the text-structure pass in C; no
// library needed) and the optional vectorscan prefilter (native/vectorscan) when Debian's
// libvectorscan-dev is installed. Never fails the install: without an addon (or if its build
// fails) Warden uses the TypeScript / RE2.Set path with the same verdicts, and /status says so.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(import.meta.url), '..', '..');

/** How long a node-gyp build took: from its configure step (config.gypi) to the addon it wrote. */
function buildTime(buildDir, addon) {
  try {
    const s = Math.max(0, Math.round((statSync(addon).mtimeMs - statSync(join(buildDir, 'config.gypi')).mtimeMs) / 1000));
    return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
  } catch {
    return null;
  }
}

/** One line for a dependency with a native addon: compiled here (and why), or a prebuilt binary. */
function reportDependency(name, addon, why) {
  const dir = join(root, 'node_modules', name);
  const file = join(dir, 'build', 'Release', addon);
  if (!existsSync(dir)) return console.log(`warden: native module ${name}: not installed`);
  if (!existsSync(file)) return console.log(`warden: native module ${name}: NOT built (${join('node_modules', name, 'build', 'Release', addon)} is missing); run \`npm rebuild ${name} --foreground-scripts\` to see why (it needs g++, make and python3)`);
  const compiled = existsSync(join(dir, 'build', 'Release', 'obj.target')) || existsSync(join(dir, 'build', 'Release', 'obj'));
  if (!compiled) return console.log(`warden: native module ${name}: prebuilt binary for Node ${process.versions.node} ${process.platform}-${process.arch} used, nothing compiled (${why})`);
  const took = buildTime(join(dir, 'build'), file);
  console.log(`warden: native module ${name}: compiled from source by node-gyp${took ? ` in ${took}` : ''}, because no prebuilt binary for Node ${process.versions.node} ${process.platform}-${process.arch} could be downloaded (${why})`);
}

reportDependency('re2', 're2.node', 'RE2: every rule pattern runs in linear time');
reportDependency('better-sqlite3', 'better_sqlite3.node', 'the default SQLite store');
if (process.env.WARDEN_SKIP_NATIVE === '1') {
  console.log('warden: native module text (structure pass in C): not built because WARDEN_SKIP_NATIVE=1 (the TypeScript structure pass is used)');
  console.log('warden: native module vectorscan (optional prefilter): not built because WARDEN_SKIP_NATIVE=1 (the RE2.Set prefilter is used)');
  process.exit(0);
}
// npm sets npm_config_node_gyp for lifecycle scripts; otherwise the node-gyp bundled with npm.
const candidates = [
  process.env.npm_config_node_gyp,
  join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  join(root, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
].filter((p) => p && existsSync(p));
if (candidates.length === 0) {
  console.log('warden: native module text (structure pass in C): not built because node-gyp was not found (the TypeScript structure pass is used)');
  console.log('warden: native module vectorscan (optional prefilter): not built because node-gyp was not found (the RE2.Set prefilter is used)');
  process.exit(0);
}
// Node's headers: npm passes its nodedir setting to lifecycle scripts; run by hand, the
// distribution's headers (/usr/include/node) if present, else node-gyp downloads them.
const nodedir = process.env.npm_config_nodedir || (existsSync('/usr/include/node/node_api.h') ? '/usr' : '');

/** Builds native/<name> with node-gyp; true when it built. */
function buildAddon(name, what, fallback) {
  const started = Date.now();
  const r = spawnSync(process.execPath, [candidates[0], 'rebuild', ...(nodedir ? [`--nodedir=${nodedir}`] : [])], { cwd: join(root, 'native', name), stdio: 'inherit' });
  if (r.status !== 0) console.log(`warden: native module ${name} (${what}): the build failed (see above); ${fallback} will be used`);
  else console.log(`warden: native module ${name} (${what}): built in ${Math.round((Date.now() - started) / 1000)}s`);
  return r.status === 0;
}

console.log('warden: native module text (structure pass in C): compiling now with node-gyp (no library needed); WARDEN_SKIP_NATIVE=1 skips it');
buildAddon('text', 'structure pass in C', 'the TypeScript structure pass');

const header = ['/usr/include/hs/hs.h', '/usr/local/include/hs/hs.h'].find((p) => existsSync(p));
if (!header) {
  console.log('warden: native module vectorscan (optional prefilter): not built because libvectorscan-dev is not installed (apt-get install libvectorscan-dev); the RE2.Set prefilter is used');
  process.exit(0);
}
console.log(`warden: native module vectorscan (optional prefilter): compiling now with node-gyp because libvectorscan-dev is installed (${header}); WARDEN_SKIP_NATIVE=1 skips it`);
buildAddon('vectorscan', 'optional prefilter', 'the RE2.Set prefilter');
process.exit(0);
