/**
 * word-triggers.ts: the rot13 and reversed-text triggers read in one pass must find exactly what
 * the regular expressions they replace find (`\b(?:W)\b` twice anywhere; `\b(?:W)\W+(?:W)\b` or
 * an RLO/RLI), on the development set, on generated text, and on the edges of a word.
 */
import { expect } from 'chai';
import { WordSet, wordTriggers } from '../../../src/scanning/normalise/word-triggers.js';
import { REVERSED_WORDS } from '../../../src/scanning/normalise/decode.js';
import { ROT13_WORDS } from '../../../src/scanning/normalise/triage.js';
import { mulberry32 } from '../../../src/util/prng.js';
import { differentialCorpus } from '../differential-corpus.js';

const ROT13 = `${ROT13_WORDS}|nal|rirel|jvgubhg|nafjre|sebz|cevag|fubj`;
const rot13Re = new RegExp(`\\b(?:${ROT13})\\b`, 'gi');
const reversedRe = new RegExp(`\\b(?:${REVERSED_WORDS})\\W+(?:${REVERSED_WORDS})\\b|[\\u202e\\u2067]`, 'i');
const rot13Set = new WordSet(ROT13.split('|'));
const reversedSet = new WordSet(REVERSED_WORDS.split('|'));

function expected(text: string): { rot13: boolean; reversed: boolean } {
  return { rot13: (text.match(rot13Re) ?? []).length >= 2, reversed: reversedRe.test(text) };
}

describe('scanning/normalise/word-triggers: one pass, same answers as the expressions', () => {
  it('agrees on the edges of words: case, digits, underscores, non-ASCII letters, RLO', () => {
    const cases = [
      'naq cevag gur', 'NAQ Cevag', 'naq_cevag gur', 'naq1 cevag', 'éncevag naq gur', 'naq\u00e9 gur naq',
      'snoitcurtsni suoiverp', 'Snoitcurtsni, SUOIVERP', 'snoitcurtsni_suoiverp', 'snoitcurtsni suoiverpX',
      'no era', 'no\n\nera', 'noera', 'on the way', 'abc \u202e def', 'x\u2067', 'gur', '', '_', 'a\u0301naq gur',
      'lla erongi', 'llaX erongi', 'tub 5 sa',
    ];
    for (const text of cases) expect(wordTriggers(text, rot13Set, reversedSet), JSON.stringify(text)).to.deep.equal(expected(text));
  });

  it('agrees on the differential corpus (development set, probe sets, rule tests) and on 20,000 generated strings', () => {
    const texts = differentialCorpus().texts;
    const rand = mulberry32(424242);
    const pieces = ['naq', 'GUR', 'cevag', 'eht', 'dna', 'lla', 'erongi', 'no', 'era', ' ', ' ', '\n', '_', '1', '-', 'é', 'x', 'Q', '\u202e', ', ', 'yb', 'ym'];
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      const n = 1 + Math.floor(rand() * 12);
      for (let i = 0; i < n; i++) s += pieces[Math.floor(rand() * pieces.length)]!;
      texts.push(s);
    }
    let rot13 = 0;
    let reversed = 0;
    for (const text of texts) {
      const want = expected(text);
      const got = wordTriggers(text, rot13Set, reversedSet);
      if (got.rot13 !== want.rot13 || got.reversed !== want.reversed) expect(got, JSON.stringify(text)).to.deep.equal(want);
      if (want.rot13) rot13++;
      if (want.reversed) reversed++;
    }
    // Both triggers were exercised, not only their absence.
    expect(rot13).to.be.greaterThan(100);
    expect(reversed).to.be.greaterThan(100);
  });

  it('refuses a word list it cannot match', () => {
    expect(() => new WordSet(['ok', 'Not'])).to.throw(/"Not" is not a lower-case ASCII word/);
    expect(() => new WordSet(['a b'])).to.throw(/not a lower-case ASCII word/);
  });
});
