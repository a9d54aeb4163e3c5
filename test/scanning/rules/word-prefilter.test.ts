/**
 * The word-level rule prefilter (src/scanning/rules/word-prefilter.ts, native/text/words.c):
 * the C matcher against the TypeScript one, the rule matcher's answers on the word path against
 * the RE2.Sets alone (views, signals, hits and spans, every target), the whole engine's
 * verdicts, and what the addon says to bad tables.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { nativeText } from '../../../src/scanning/native-text.js';
import { normalise } from '../../../src/scanning/normalise/index.js';
import { applyPolicy } from '../../../src/scanning/policy.js';
import { CompiledRules } from '../../../src/scanning/rules/compile.js';
import { loadRuleSet } from '../../../src/scanning/rules/load.js';
import { needsNonAscii } from '../../../src/scanning/rules/prefilter.js';
import { wordForm } from '../../../src/scanning/rules/word-forms.js';
import { buildWordTables, WordMatcherNative, WordMatcherTs } from '../../../src/scanning/rules/word-prefilter.js';
import { TARGETS, type Target } from '../../../src/scanning/types.js';
import { mulberry32 } from '../../../src/util/prng.js';
import { engineWithPrefilter, ROOT } from '../../support/scanning.js';
import { differentialCorpus, longTexts } from '../differential-corpus.js';
import { asciiLongTexts } from './ascii-texts.js';

function scanOf(c: CompiledRules, text: string, target: Target): unknown {
  const input = normalise(text, target, { triage: (t) => c.triage(t, target) });
  return { views: input.views.map((v) => [v.kind, v.text]), signals: input.signals, hits: c.match(input) };
}

describe('scanning/rules word prefilter', function () {
  this.timeout(900_000);
  const rules = loadRuleSet(join(ROOT, 'rules'));

  it('lays sequences out as a trie: sequences with the same first slots share positions', () => {
    const t = buildWordTables([
      [
        [{ exact: ['ignore'], prefix: [], any: false }, { exact: ['all'], prefix: [], any: false }],
        [{ exact: ['ignore'], prefix: [], any: false }, { exact: ['previous'], prefix: [], any: false }],
      ],
      null,
      [[{ exact: ['ignore'], prefix: [], any: false }, { exact: [], prefix: [], any: true }, { exact: [], prefix: ['rule'], any: false }]],
    ]);
    expect(t.posFlags.length, 'ignore / all, previous, any / rule…').to.equal(5);
    expect(Array.from(t.posParent)).to.deep.equal([-1, 0, 0, 0, 3]);
    const m = new WordMatcherTs(t);
    expect(m.match('please IGNORE all of it')).to.deep.equal([0]);
    expect(m.match('ignore the rulebook')).to.deep.equal([2]);
    expect(m.match('ignore, all')).to.deep.equal([]);
  });

  describe('in C', function () {
    before(function () {
      if (nativeText() === null) {
        if (process.env.WARDEN_NATIVE_TEXT === '0') this.skip();
        throw new Error('native/text was not built (npm ci builds it with node-gyp)');
      }
    });

    it('names the same forms as the TypeScript matcher, for every target, on the corpus and long texts', () => {
      const compiled = new CompiledRules(rules, { prefilter: 're2' });
      const texts = [...differentialCorpus().texts, ...asciiLongTexts()].filter((t) => /^[\x00-\x7f]*$/.test(t));
      let named = 0;
      for (const target of TARGETS) {
        const forms = (compiled as unknown as { byTarget: Map<string, { forms: string[] }> }).byTarget.get(target)!.forms;
        const tables = buildWordTables(forms.map((f) => (needsNonAscii(f) ? null : wordForm(f))));
        const ts = new WordMatcherTs(tables);
        const c = new WordMatcherNative(nativeText()!, tables);
        for (const text of texts) {
          const a = [...ts.match(text)].sort((x, y) => x - y);
          const b = [...c.match(text, Buffer.from(text))].sort((x, y) => x - y);
          expect(b, `${target}: ${JSON.stringify(text.slice(0, 160))}`).to.deep.equal(a);
          named += a.length;
        }
      }
      expect(named).to.be.greaterThan(3000);
    });

    it('agrees with the TypeScript matcher on seeded soups of rule words, punctuation, control characters and 100-letter words', () => {
      const compiled = new CompiledRules(rules, { prefilter: 're2' });
      const forms = (compiled as unknown as { byTarget: Map<string, { forms: string[] }> }).byTarget.get('prompt')!.forms;
      const tables = buildWordTables(forms.map((f) => (needsNonAscii(f) ? null : wordForm(f))));
      const ts = new WordMatcherTs(tables);
      const c = new WordMatcherNative(nativeText()!, tables);
      const rand = mulberry32(29);
      const vocab = [...tables.entries, 'x'.repeat(100), 'A'.repeat(65), '_', '\x00', '\x7f', '\t', '\n', ' ', '  ', "'", '-', ':', '(', '<', '>', '|'];
      let named = 0;
      for (let k = 0; k < 3000; k++) {
        const n = Math.floor(rand() * 60);
        let text = '';
        for (let i = 0; i < n; i++) text += vocab[Math.floor(rand() * vocab.length)]! + (rand() < 0.7 ? ' ' : '');
        if (rand() < 0.3) text = text.toUpperCase();
        const a = [...ts.match(text)].sort((x, y) => x - y);
        const b = [...c.match(text, Buffer.from(text))].sort((x, y) => x - y);
        expect(b, JSON.stringify(text)).to.deep.equal(a);
        named += a.length;
      }
      expect(named).to.be.greaterThan(1000);
    });

    it('gives the same views, signals and rule hits as the RE2.Sets alone, for every target', () => {
      const words = new CompiledRules(rules, { prefilter: 'words' });
      const re2 = new CompiledRules(rules, { prefilter: 're2' });
      expect(words.prefilterKind).to.equal('words');
      expect(re2.prefilterKind).to.equal('re2-set');
      const layout = words.wordLayout('prompt')!;
      expect(layout.matcher).to.equal('native');
      expect(layout.wordForms, JSON.stringify(layout)).to.be.greaterThan(layout.setForms * 5);
      const texts = [...differentialCorpus().texts, ...asciiLongTexts(), ...longTexts()];
      let hits = 0;
      for (const target of TARGETS) {
        for (const text of texts) {
          const a = scanOf(re2, text, target) as { hits: unknown[] };
          const b = scanOf(words, text, target);
          expect(b, `${target}: ${JSON.stringify(text).slice(0, 200)}`).to.deep.equal(a);
          hits += a.hits.length;
        }
      }
      expect(hits).to.be.greaterThan(1000);
    });

    it('gives the same verdicts and threats with every built-in plugin on the development set and probe sets', async () => {
      const words = await engineWithPrefilter(rules, 'words');
      const re2 = await engineWithPrefilter(rules, 're2');
      expect(words.rules.prefilterKind).to.equal('words');
      expect(re2.rules.prefilterKind).to.equal('re2-set');
      let blocked = 0;
      for (const text of [...differentialCorpus().texts, ...asciiLongTexts()]) {
        const a = applyPolicy(re2.scan(text, 'prompt'));
        const b = applyPolicy(words.scan(text, 'prompt'));
        const strip = (r: typeof a): unknown => ({ verdict: r.verdict, risk: r.risk_score, threats: r.threats.map(({ threat_id: _id, ...t }) => t), error: r.error });
        expect(strip(b), JSON.stringify(text).slice(0, 200)).to.deep.equal(strip(a));
        if (a.verdict === 'block') blocked++;
      }
      expect(blocked).to.be.greaterThan(500);
    });

    it('refuses tables that do not hold together, with a clear error', () => {
      const addon = nativeText()!;
      const t = buildWordTables([[[{ exact: ['ignore'], prefix: [], any: false }, { exact: ['rules'], prefix: [], any: false }]]]);
      const args = (over: Partial<Record<string, unknown>>): unknown[] => {
        const a: Record<string, unknown> = {
          entries: t.entries.map((e) => `${e}\n`).join(''),
          isPrefix: t.entryIsPrefix,
          entryStart: t.entryStart,
          entryPositions: t.entryPositions,
          posFlags: t.posFlags,
          posParent: t.posParent,
          anyStart: t.anyStart,
          anyChildren: t.anyChildren,
          formStart: t.formStart,
          formIds: t.formIds,
          forms: t.forms,
          ...over,
        };
        return Object.values(a);
      };
      const compile = (over: Partial<Record<string, unknown>>): unknown => (addon.wordsCompile as (...a: unknown[]) => object)(...args(over));
      expect(compile({})).to.be.an('object');
      expect(() => compile({ posParent: new Uint32Array(t.posParent.length) })).to.throw(TypeError, /wordsCompile\(entries/);
      expect(() => compile({ entryPositions: Uint32Array.from([0, 9]) })).to.throw(RangeError, /entryStart does not end|out of range/);
      expect(() => compile({ entryPositions: Uint32Array.from([0, 7]) })).to.throw(RangeError, /out of range/);
      expect(() => compile({ formIds: Uint32Array.from([5]) })).to.throw(RangeError, /form id out of range/);
      expect(() => compile({ posParent: Int32Array.from([-1, -1]) })).to.throw(RangeError, /parent/);
      expect(() => compile({ entries: '\nrules\n' })).to.throw(RangeError, /empty/);
      const m = compile({}) as object;
      expect(() => addon.wordsScan(m, 'text' as unknown as Buffer, new Uint32Array(1))).to.throw(TypeError, /wordsScan/);
      expect(() => addon.wordsScan({}, Buffer.from('x'), new Uint32Array(1))).to.throw(TypeError, /wordsScan/);
      expect(addon.wordsScan(m, Buffer.from('Ignore  RULES'), new Uint32Array(1))).to.equal(1);
    });
  });
});
