/**
 * The on-disk cache of word forms (src/scanning/rules/word-form-cache.ts): the same answers as
 * reading the forms afresh, a file written once and read after, and a damaged or foreign file
 * ignored and replaced.
 */
import { expect } from 'chai';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedWordForms } from '../../../src/scanning/rules/word-form-cache.js';
import { readWords } from '../../../src/scanning/rules/word-forms.js';
import { tempDir } from '../../support/scanning.js';

describe('scanning/rules word-form cache', () => {
  const forms = ['\\b(ignore|disregard)\\s+(all\\s+)?previous\\s+instructions?\\b', '\\bignore.{0,40}rules', '\\bsystem\\s+prompt'];
  let before: string | undefined;
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => {
    before = process.env.WARDEN_PREFILTER_CACHE;
    ({ dir, cleanup } = tempDir());
    process.env.WARDEN_PREFILTER_CACHE = dir;
  });
  afterEach(() => {
    cleanup();
    if (before === undefined) delete process.env.WARDEN_PREFILTER_CACHE;
    else process.env.WARDEN_PREFILTER_CACHE = before;
  });

  it('gives what wordForm gives, skips the forms it is told to, and writes one file', () => {
    const fresh = forms.map((f) => readWords(f));
    const got = cachedWordForms(forms, [false, false, true]);
    expect(got).to.deep.equal([fresh[0], fresh[1], null]);
    const files = readdirSync(dir).filter((f) => f.startsWith('words-'));
    expect(files).to.have.length(1);
    expect(JSON.parse(readFileSync(join(dir, files[0]!), 'utf8'))).to.deep.equal(got);
    expect(cachedWordForms(forms, [false, false, true])).to.deep.equal(got);
  });

  it('ignores a damaged or planted file and writes a good one in its place', () => {
    const good = cachedWordForms(forms, [false, false, false]);
    const file = join(dir, readdirSync(dir).find((f) => f.startsWith('words-'))!);
    for (const bad of ['{not json', JSON.stringify([null, null, null].slice(0, 2)), JSON.stringify([{ sequences: [[{ exact: [''], prefix: [], any: false }]], partial: false }, null, null]), JSON.stringify([{ sequences: [[{ exact: 'x' }]], partial: false }, null, null]), JSON.stringify([[[{ exact: ['x'], prefix: [], any: false }]], null, null])]) {
      writeFileSync(file, bad);
      expect(cachedWordForms(forms, [false, false, false]), bad).to.deep.equal(good);
      expect(JSON.parse(readFileSync(file, 'utf8'))).to.deep.equal(good);
    }
    // A form skipped here but present in the file is not taken from it.
    const skipped = cachedWordForms(forms, [false, true, true]);
    const other = join(dir, readdirSync(dir).find((f) => f.startsWith('words-') && join(dir, f) !== file)!);
    writeFileSync(other, JSON.stringify([good[0], good[0], good[0]]));
    expect(cachedWordForms(forms, [false, true, true])).to.deep.equal(skipped);
  });
});
