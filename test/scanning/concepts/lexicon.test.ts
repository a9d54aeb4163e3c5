import { expect } from 'chai';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadLexicon, parseLexicon, LexiconError, builtinLexiconPath } from '../../../src/scanning/concepts/lexicon.js';

/** The languages the issue asks for at least (24), all in the shipped lexicon. */
const REQUIRED = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'pl', 'ru', 'uk', 'cs', 'el', 'tr', 'ar', 'fa', 'he', 'hi', 'bn', 'zh', 'ja', 'ko', 'th', 'vi', 'id', 'sw'];
const CONCEPTS = ['ignore', 'previous', 'instructions', 'system_prompt', 'reveal', 'pretend', 'unrestricted', 'you_are_now', 'send', 'secret'];

describe('concept lexicon (src/scanning/concepts/lexicon.yaml)', () => {
  it('the shipped file loads: every concept has entries in every listed language, 25 languages at least', () => {
    const lex = loadLexicon();
    expect(lex.languages).to.include.members(REQUIRED);
    expect(lex.concepts.map((c) => c.id)).to.include.members(CONCEPTS);
    for (const c of lex.concepts) for (const l of lex.languages) expect(c.entries[l]?.length ?? 0, `${c.id} ${l}`).to.be.greaterThan(0);
    // Lines point into the file.
    const ignoreEn = lex.concepts.find((c) => c.id === 'ignore')!.entries.en![0]!;
    expect(ignoreEn.term).to.equal('ignor*');
    expect(ignoreEn.line).to.be.greaterThan(10);
  });

  const good = 'languages: [en, de]\nconcepts:\n  ignore:\n    en: [ignor*, disregard]\n    de: [ignorier*]\n';
  it('parses a small well-formed file', () => {
    const lex = parseLexicon(good, 'x.yaml');
    expect(lex.concepts).to.deep.equal([{ id: 'ignore', entries: { en: [{ term: 'ignor*', line: 4 }, { term: 'disregard', line: 4 }], de: [{ term: 'ignorier*', line: 5 }] } }]);
  });

  const bad: Array<[string, string, RegExp]> = [
    ['a concept without one of the languages', 'languages: [en, de]\nconcepts:\n  ignore:\n    en: [ignore]\n', /^bad\.yaml:3: concept "ignore" has no entries for de/],
    ['a language not listed', 'languages: [en]\nconcepts:\n  ignore:\n    en: [ignore]\n    xx: [foo]\n', /^bad\.yaml:5: concept "ignore": language "xx" is not in "languages"/],
    ['an empty list', 'languages: [en]\nconcepts:\n  ignore:\n    en: []\n', /^bad\.yaml:4: concept "ignore", language "en": expected a non-empty list/],
    ['a number for an entry', 'languages: [en]\nconcepts:\n  ignore:\n    en: [ignore,\n      42]\n', /^bad\.yaml:5: concept "ignore", language "en": entry 42 must be a string/],
    ['a star inside a word', 'languages: [en]\nconcepts:\n  ignore:\n    en: [ign*ore]\n', /^bad\.yaml:4: .*entry "ign\*ore" must be words of letters/],
    ['punctuation', 'languages: [en]\nconcepts:\n  ignore:\n    en: ["ignore!"]\n', /^bad\.yaml:4: .*must be words of letters/],
    ['two spaces', 'languages: [en]\nconcepts:\n  ignore:\n    en: ["ignore  all"]\n', /^bad\.yaml:4: .*must be words of letters/],
    ['upper case', 'languages: [en]\nconcepts:\n  ignore:\n    en: [Ignore]\n', /^bad\.yaml:4: .*entry "Ignore" must be lower case/],
    ['a prefix too short', 'languages: [en]\nconcepts:\n  ignore:\n    en: [ig*]\n', /^bad\.yaml:4: .*prefix "ig\*" is shorter than 3 letters/],
    ['an entry twice', 'languages: [en]\nconcepts:\n  ignore:\n    en: [ignore,\n         ignore]\n', /^bad\.yaml:5: .*entry "ignore" is listed twice/],
    ['a bad concept id', 'languages: [en]\nconcepts:\n  Ignore-It:\n    en: [ignore]\n', /^bad\.yaml:3: concept id "Ignore-It" must be/],
    ['a bad language code', 'languages: [en, English]\nconcepts:\n  ignore:\n    en: [ignore]\n', /^bad\.yaml:1: language code "English" must be/],
    ['a language twice', 'languages: [en, en]\nconcepts:\n  ignore:\n    en: [ignore]\n', /^bad\.yaml:1: language "en" listed twice/],
    ['an unknown top-level key', 'languages: [en]\nconcept:\n  ignore:\n    en: [ignore]\n', /^bad\.yaml:\d+: "concepts" must be a mapping/],
    ['a concept that is not a mapping', 'languages: [en]\nconcepts:\n  ignore: [ignore]\n', /^bad\.yaml:3: concept "ignore" must map language codes/],
    ['broken YAML', 'languages: [en]\nconcepts:\n  ignore:\n    en: [ignore\n    de: x\n', /^bad\.yaml:\d+: not valid YAML/],
    ['a duplicate key', 'languages: [en]\nconcepts:\n  ignore:\n    en: [ignore]\n  ignore:\n    en: [forget]\n', /^bad\.yaml:\d+: not valid YAML: Map keys must be unique/],
  ];
  for (const [what, text, message] of bad) {
    it(`fails with the file and line on ${what}`, () => {
      let err: unknown;
      try { parseLexicon(text, 'bad.yaml'); } catch (e) { err = e; }
      expect(err).to.be.instanceOf(LexiconError);
      expect((err as Error).message).to.match(message);
    });
  }

  it('loadLexicon names a file it cannot read, and a malformed file by path and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'warden-lexicon-'));
    try {
      expect(() => loadLexicon(join(dir, 'missing.yaml'))).to.throw(/concepts: cannot read lexicon .*missing\.yaml/);
      const file = join(dir, 'lexicon.yaml');
      writeFileSync(file, 'languages: [en, de]\nconcepts:\n  ignore:\n    en: [ignore]\n    de: [Ignoriere]\n');
      expect(() => loadLexicon(file)).to.throw(`${file}:5: concept "ignore", language "de": entry "Ignoriere" must be lower case`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(builtinLexiconPath()).to.match(/lexicon\.yaml$/);
  });
});
