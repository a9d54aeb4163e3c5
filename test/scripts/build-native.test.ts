import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../src/version.js';

/** `npm ci` runs scripts/build-native.mjs as the package's install step: one line per native module, saying what was built and why (issue 27, item 9). */
describe('scripts/build-native.mjs (the install step npm ci shows)', function () {
  this.timeout(60_000);

  it('prints one line per native module: re2, better-sqlite3, the text addon and the optional vectorscan addon, each with why', () => {
    const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-native.mjs')], { env: { ...process.env, WARDEN_SKIP_NATIVE: '1' }, encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.map((l) => /^warden: native module (\S+?)[:\s]/.exec(l)?.[1])).to.deep.equal(['re2', 'better-sqlite3', 'text', 'vectorscan']);
    for (const l of lines.slice(0, 2)) expect(l).to.match(/: (compiled from source by node-gyp( in \d+m?\d*s)?, because no prebuilt binary for Node [\d.]+ \S+ could be downloaded|prebuilt binary for Node [\d.]+ \S+ used, nothing compiled) \(.+\)$/);
    for (const l of lines.slice(2)) expect(l).to.include('not built because WARDEN_SKIP_NATIVE=1');
  });
});
