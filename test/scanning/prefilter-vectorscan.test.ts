/**
 * The vectorscan prefilter (native/vectorscan, built at install where libvectorscan-dev is
 * installed) against the RE2.Set prefilter, in the same run: identical rule hits, spans, views
 * and triage on the development set, every probe set, the rule tests and disguises, for every
 * target; forms vectorscan refuses are still matched; the database cache is reused and a
 * damaged one rebuilt; the normaliser's triage in C (the addon's triage()) gives the RE2
 * triage patterns' answers; whole-engine verdicts are the same on both prefilters.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import RE2 from 're2';
import { normalise } from '../../src/scanning/normalise/index.js';
import { TRIAGE_PATTERNS } from '../../src/scanning/normalise/triage.js';
import { applyPolicy } from '../../src/scanning/policy.js';
import { mulberry32 } from '../../src/util/prng.js';
import { nativeText } from '../../src/scanning/native-text.js';
import { CompiledRules } from '../../src/scanning/rules/compile.js';
import { loadRuleSet } from '../../src/scanning/rules/load.js';
import { vectorscanAddon, VectorscanDatabase } from '../../src/scanning/rules/vectorscan.js';
import { TARGETS, type Target } from '../../src/scanning/types.js';
import { differentialCorpus, longTexts } from './differential-corpus.js';
import { engineWithPrefilter, ROOT, ruleYaml, tempDir, writeFiles } from '../support/scanning.js';

function scanOf(c: CompiledRules, text: string, target: Target): unknown {
  const input = normalise(text, target, { triage: (t) => c.triage(t, target) });
  return { views: input.views.map((v) => [v.kind, v.text]), signals: input.signals, hits: c.match(input) };
}

describe('scanning/rules vectorscan prefilter', function () {
  this.timeout(900_000);
  before(function () {
    if (vectorscanAddon() !== null) return;
    // Where the library is installed (CI installs it), the addon must have been built.
    if (existsSync('/usr/include/hs/hs.h') && process.env.WARDEN_PREFILTER !== 're2') throw new Error('libvectorscan-dev is installed but native/vectorscan was not built (npm ci builds it)');
    this.skip();
  });

  it('gives the same views and rule hits as the RE2.Sets on the dev set, every probe set, the rule tests and disguises', async () => {
    const rules = loadRuleSet(join(ROOT, 'rules'));
    const vs = new CompiledRules(rules, { prefilter: 'vectorscan' });
    const re2 = new CompiledRules(rules, { prefilter: 're2' });
    expect(vs.prefilterKind).to.be.oneOf(['re2-set', 'vectorscan']); // building, or loaded from the cache
    const ready = await vs.prefilterReady();
    expect(ready.kind, String(ready.reason)).to.equal('vectorscan');
    expect(re2.prefilterKind).to.equal('re2-set');
    expect(new CompiledRules(rules).prefilterKind, 'the default').to.equal(
      process.env.WARDEN_PREFILTER === 'vectorscan' ? 'vectorscan' : process.env.WARDEN_PREFILTER === 'words' && nativeText() !== null ? 'words' : 're2-set',
    );
    const { texts, sources } = differentialCorpus();
    expect(texts.length, JSON.stringify(sources)).to.be.greaterThan(500);
    let hits = 0;
    for (const target of TARGETS) {
      for (const text of texts) {
        const a = scanOf(re2, text, target);
        const b = scanOf(vs, text, target);
        expect(b, `${target}: ${JSON.stringify(text).slice(0, 200)}`).to.deep.equal(a);
        hits += (a as { hits: unknown[] }).hits.length;
      }
    }
    expect(hits).to.be.greaterThan(1000);
  });

  it('gives the same rule hits on long generated texts: markup tables, 200 KB documents, mixed scripts', async () => {
    // Issue 29: vectorscan 5.4.9 compiled exact patterns with large counted repeats yet missed
    // most matches of the markdown-image exfiltration rule at the end of a long table. Long
    // texts are where an automaton's limits show; the prefilter forms must not have any.
    const rules = loadRuleSet(join(ROOT, 'rules'));
    const vs = new CompiledRules(rules, { prefilter: 'vectorscan' });
    const re2 = new CompiledRules(rules, { prefilter: 're2' });
    expect((await vs.prefilterReady()).kind).to.equal('vectorscan');
    const texts = longTexts();
    let hits = 0;
    for (const target of TARGETS) {
      for (const text of texts) {
        const a = scanOf(re2, text, target) as { hits: Array<{ ruleId: string; spans: unknown[] }> };
        const b = scanOf(vs, text, target) as { hits: Array<{ ruleId: string; spans: unknown[] }> };
        expect(b.hits, `${target}: ${JSON.stringify(text).slice(-200)}`).to.deep.equal(a.hits);
        hits += a.hits.reduce((n, h) => n + h.spans.length, 0);
      }
    }
    expect(hits, 'rule matches seen').to.be.greaterThan(50);
  });

  it('matches a form vectorscan refuses with RE2, and says how many there are', async () => {
    const t = tempDir();
    try {
      // `x\by` can never match (a word boundary between two word characters): RE2 compiles it,
      // vectorscan refuses it. The rule still works through RE2 (and never fires).
      writeFiles(t.dir, { 'a.yaml': ruleYaml('t.never', 'x\\by') + ruleYaml('t.hello', '\\bhello\\s+there\\b') });
      const rules = loadRuleSet(t.dir);
      const vs = new CompiledRules(rules, { prefilter: 'vectorscan' });
      const ready = await vs.prefilterReady();
      expect(ready.kind).to.equal('vectorscan');
      expect(ready.rejectedForms).to.equal(1);
      const re2 = new CompiledRules(rules, { prefilter: 're2' });
      for (const text of ['Hello  there, friend', 'xby x by', 'nothing']) {
        expect(scanOf(vs, text, 'prompt')).to.deep.equal(scanOf(re2, text, 'prompt'));
      }
      expect((scanOf(vs, 'Hello  there', 'prompt') as { hits: Array<{ ruleId: string }> }).hits.map((h) => h.ruleId)).to.deep.equal(['t.hello']);
    } finally {
      t.cleanup();
    }
  });

  it('reuses the database from its cache, and rebuilds a damaged one', async () => {
    const a = vectorscanAddon()!;
    const t = tempDir();
    try {
      const patterns = ['\\bignore\\s+previous\\b', 'пароль', '[A-Za-z0-9+/]{16,}'];
      const first = new VectorscanDatabase(a, patterns, t.dir);
      await first.ready;
      expect(first.state).to.equal('ready');
      expect([...first.scan(Buffer.from('please IGNORE previous; ПАРОЛЬ'))].sort()).to.deep.equal([0, 1]);
      const files = readdirSync(t.dir).sort();
      expect(files.map((f) => f.replace(/^[0-9a-f]+/, 'K'))).to.deep.equal(['K.db', 'K.json']);
      // From the cache: ready at once, no build.
      const second = new VectorscanDatabase(a, patterns, t.dir);
      expect(second.state).to.equal('ready');
      expect([...second.scan(Buffer.from('aGVsbG8gd29ybGQgaGVsbG8='))]).to.deep.equal([2]);
      // A damaged file is rebuilt, with the same answers.
      writeFileSync(join(t.dir, files[0]!), 'not a database');
      const third = new VectorscanDatabase(a, patterns, t.dir);
      await third.ready;
      expect(third.state).to.equal('ready');
      expect([...third.scan(Buffer.from('ignore previous'))]).to.deep.equal([0]);
    } finally {
      t.cleanup();
    }
  });

  it("the addon's triage() gives the RE2 triage patterns' answers (as the prefilter sets hold them) or says it is unsure", () => {
    const a = vectorscanAddon()!;
    const set = new RE2.Set(TRIAGE_PATTERNS as string[], 'iu');
    const check = (text: string): boolean => {
      const bytes = Buffer.from(text, 'utf8');
      const mask = a.triage(bytes);
      if (mask & a.TRIAGE_UNSURE) {
        expect(/[\u017f\u212a]/.test(text), `unsure without LONG S or KELVIN SIGN: ${JSON.stringify(text)}`).to.equal(true);
        return false;
      }
      const want = set.match(bytes).reduce((m, k) => m | (1 << k), 0);
      expect(mask.toString(2), JSON.stringify(text).slice(0, 300)).to.equal(want.toString(2));
      return true;
    };
    const { texts } = differentialCorpus();
    for (const text of texts) check(text);
    // Soups of the characters each pattern turns on: word characters, leet digits, separators
    // of spaced letters, hex pairs and their separators, %, \x, rot13 words, non-ASCII of the
    // kept and the other scripts, invisible characters, LONG S and KELVIN SIGN.
    const parts = ['a', 'b', 'e', 'f', 'g', 'z', 'X', 'A', 'F', '0', '1', '3', '4', '7', '9', '2', '8', '_', ' ', ' ', '\t', '\n', '.', '*', '~', '/', '|', '+', ',', ':', ';', '-', '%', '\\', '=', 'x',
      'gur', 'naq', 'lbh', 'lbhe', 'vf', 'gb', 'GUR', 'ab', '0f:', 'c3,', 'de ', 'é', 'ж', 'α', '中', 'ا', 'क', 'ก', 'あ', '한', '😀', '\u200b', '\u0301', '\u{E0041}', 'ſ', '\u212a'];
    const rand = mulberry32(16);
    let sure = 0;
    for (let i = 0; i < 60_000; i++) {
      let text = '';
      const n = 1 + Math.floor(rand() * 40);
      for (let k = 0; k < n; k++) text += parts[Math.floor(rand() * parts.length)]!;
      if (check(text)) sure++;
    }
    expect(sure).to.be.greaterThan(20_000);
    for (const text of ['s p a c e d', 'h4ck the 5ystem', '4bcd', 'a_b c d e', '%2F', '\\x41', 'de:ad:be:ef:00:11:22:33', 'Vtaber nyy cerivbhf', 'QUJDREVGR0hJSktMTU5PUA==', 'café', 'Привет']) {
      expect(check(text), text).to.equal(true);
    }
  });

  it('LONG S and KELVIN SIGN are the only characters RE2 folds into [a-z] (what triage() defers to RE2 for)', () => {
    let all = '';
    for (let cp = 0x80; cp <= 0x2ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) all += String.fromCodePoint(cp);
    const found = new Set<string>();
    const re = new RE2('[a-z0-9]', 'giu');
    for (let m = re.exec(all); m !== null; m = re.exec(all)) found.add(m[0]);
    expect([...found].map((c) => c.codePointAt(0)!.toString(16)).sort()).to.deep.equal(['17f', '212a']);
  });

  it('gives the same verdicts and threats as the RE2.Sets with every built-in plugin, on the dev set and every probe set', async () => {
    const rules = loadRuleSet(join(ROOT, 'rules'));
    const vs = await engineWithPrefilter(rules, 'vectorscan');
    const re2 = await engineWithPrefilter(rules, 're2');
    expect((await vs.rules.prefilterReady()).kind).to.equal('vectorscan');
    expect(re2.rules.prefilterKind).to.equal('re2-set');
    const { texts } = differentialCorpus();
    let blocked = 0;
    for (const target of TARGETS) {
      for (const text of texts) {
        const a = applyPolicy(re2.scan(text, target));
        const b = applyPolicy(vs.scan(text, target));
        const strip = (r: typeof a): unknown => ({ verdict: r.verdict, risk: r.risk_score, threats: r.threats.map(({ threat_id: _id, ...t }) => t), error: r.error });
        expect(strip(b), `${target}: ${JSON.stringify(text).slice(0, 200)}`).to.deep.equal(strip(a));
        if (a.verdict === 'block') blocked++;
      }
    }
    expect(blocked).to.be.greaterThan(500);
  });
});
