/**
 * Prefilter forms as word sequences (src/scanning/rules/word-forms.ts): the shapes it reads,
 * what it leaves to the byte-level prefilter, and the one property that matters, that the
 * sequences are a superset of the form on all-ASCII text, held against RE2 for every shipped
 * form on the differential corpus and long generated texts.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import RE2 from 're2';
import { CompiledRules } from '../../../src/scanning/rules/compile.js';
import { loadRuleSet } from '../../../src/scanning/rules/load.js';
import { needsNonAscii } from '../../../src/scanning/rules/prefilter.js';
import { readWords, tokenise, wordForm, wordFormOrReason, type Slot } from '../../../src/scanning/rules/word-forms.js';
import { buildWordTables, WordMatcherTs } from '../../../src/scanning/rules/word-prefilter.js';
import { TARGETS } from '../../../src/scanning/types.js';
import { ROOT } from '../../support/scanning.js';
import { asciiLongTexts } from './ascii-texts.js';
import { differentialCorpus } from '../differential-corpus.js';

const show = (seqs: Slot[][] | null): string[] | null =>
  seqs === null ? null : seqs.map((seq) => seq.map((s) => (s.any ? '*' : [...s.exact, ...s.prefix.map((p) => `${p}…`)].join('|'))).join(' ')).sort();

describe('scanning/rules word-forms', () => {
  it('reads words joined by spaces, optional groups and word alternations', () => {
    expect(show(wordForm('\\b(ignore|disregard)\\s+(all\\s+)?previous\\s+instructions?\\b'))).to.deep.equal([
      'ignore|disregard all previous instruction|instructions',
      'ignore|disregard previous instruction|instructions',
    ]);
  });

  it('makes an open word end a prefix, and a word part it cannot know any word', () => {
    expect(show(wordForm('\\bdistribut\\w{0,4}\\s+malware\\b'))).to.deep.equal(['distribut… malware']);
    // No \b after the last word: it may go on ("promptly").
    expect(show(wordForm('\\bsystem\\s+prompt'))).to.deep.equal(['system prompt…']);
    expect(show(wordForm('\\bact\\s+as\\s+\\w+ing\\s+bot\\b'))).to.deep.equal(['act as * bot']);
  });

  it('reads \\s* between two words as one word or two, and punctuation as tokens of its own', () => {
    expect(show(wordForm('\\bpre\\s*prompt\\b'))).to.deep.equal(['pre prompt', 'preprompt']);
    expect(show(wordForm("\\byou're\\s+now\\b"))).to.deep.equal(["you ' re now"]);
    expect(show(wordForm('\\bnew\\s+instructions?\\s*:'))).to.deep.equal(['new instruction|instructions :']);
  });

  it('drops a first word that may end a longer word, and any-word slots at either end', () => {
    // "mypassword reveal" matches the pattern: "password" may be the tail of a longer word.
    expect(show(wordForm('password\\s+reveal\\s+now\\b'))).to.deep.equal(['reveal now']);
    expect(show(wordForm('\\b\\w+\\s+ignore\\s+rules\\b'))).to.deep.equal(['ignore rules']);
  });

  it('drops branches no all-ASCII text can match, but not characters RE2 folds into ASCII', () => {
    expect(show(wordForm('\\b(ignore|игнорируй)\\s+rules\\b'))).to.deep.equal(['ignore rules']);
    // LONG S matches "s" case-insensitively: the form cannot be read as words.
    expect(wordForm('\\bſystem\\s+prompt\\b')).to.equal(null);
  });

  it('leaves what it cannot read to the byte-level prefilter, saying why', () => {
    expect(wordFormOrReason('[^x]+')).to.match(/negated class/);
    expect(wordFormOrReason('\\bon.{0,40}at')).to.match(/dot; no selective part/);
    expect(wordFormOrReason('(^|\\n)\\s*#+')).to.be.a('string');
    // Unbalanced input never throws.
    expect(wordForm('(ignore')).to.equal(null);
  });

  it('keeps the most selective window of a form too large to read whole, and says the reading is partial', () => {
    const form = '\\b(ignore|disregard)\\s+(rules|orders)\\s+(?:(?:all|any|of|the)\\s+)*(now|today)\\b';
    expect(show(wordForm(form))).to.deep.equal(['ignore|disregard rules|orders']);
    expect(readWords(form)!.partial).to.equal(true);
    expect(readWords('\\bsystem\\s+prompt\\b')!.partial).to.equal(false);
    // Around what it does not model (`.`, a negated class, \\S): a window beside it.
    expect(show(wordForm('\\bignore\\s+[^.]{0,40}\\s+previous\\s+instructions\\b'))).to.deep.equal(['previous instructions']);
    expect(show(wordForm('\\b(forget|ignore)\\b.{0,40}'))).to.deep.equal(['forget|ignore']);
  });

  it('tokenises like RE2 sees words: runs of \\w, one token per other character, spaces between', () => {
    expect(tokenise("You're NOT_here,  ok?\tA.I.")).to.deep.equal(['you', "'", 're', 'not_here', ',', 'ok', '?', 'a', '.', 'i', '.']);
    expect(tokenise('')).to.deep.equal([]);
  });

  it('is a superset of every shipped form on all-ASCII text (RE2 as the judge), for every target', () => {
    const rules = loadRuleSet(join(ROOT, 'rules'));
    const compiled = new CompiledRules(rules, { prefilter: 're2' });
    const texts = [...differentialCorpus().texts, ...asciiLongTexts()].filter((t) => /^[\x00-\x7f]*$/.test(t));
    expect(texts.length).to.be.greaterThan(2000);
    let checked = 0;
    let read = 0;
    for (const target of TARGETS) {
      const forms = (compiled as unknown as { byTarget: Map<string, { forms: string[] }> }).byTarget.get(target)!.forms;
      const wfs = forms.map((f) => (needsNonAscii(f) ? null : wordForm(f)));
      read += wfs.filter((w) => w !== null).length;
      const matcher = new WordMatcherTs(buildWordTables(wfs));
      const res = forms.map((f) => new RE2(f, 'iu'));
      for (const text of texts) {
        const found = new Set(matcher.match(text));
        const bytes = Buffer.from(text);
        wfs.forEach((w, q) => {
          if (w === null || !res[q]!.test(bytes)) return;
          checked++;
          expect(found.has(q), `${target}: form ${forms[q]!.slice(0, 120)} matches ${JSON.stringify(text.slice(0, 160))}`).to.equal(true);
        });
      }
    }
    expect(read, 'forms read as words').to.be.greaterThan(400);
    expect(checked, 'form matches checked').to.be.greaterThan(2000);
  });
});
