/**
 * The normaliser after the 2026-11-25 changes (ASCII-ness and the UTF-8 of the original taken
 * from the rule prefilter, which already converted the text) against the normaliser before
 * them, kept as a reference under normalise-reference/: every view, every offset map, every
 * signal and the shared input fields must be identical on the development set, every probe
 * set, the shipped rules' tests and hand-made disguises, for each target.
 *
 * Since issue 23 the normaliser also undoes JSON string escapes, HTML character references,
 * base32 and reversed text, views the reference never made: those views (and everything
 * derived from them) are set aside; the signals may only grow by them (decoded payloads, and
 * what the new views' own normalised views count); every other view and offset map, and the
 * signals of any input that got no new view, must still be identical. One more change is
 * allowed: in text with two leetspeak words, leet characters the old rule left alone ("7h3",
 * "byp455") are mapped too, so a view may differ from the reference only where the reference
 * kept a leet character and the new view has its letter (same length, same offsets), with the
 * leetspeak count growing accordingly.
 */
import { expect } from 'chai';
import { join } from 'node:path';
import { normalise } from '../../src/scanning/normalise/index.js';
import { CompiledRules } from '../../src/scanning/rules/compile.js';
import { loadRuleSet } from '../../src/scanning/rules/load.js';
import { TARGETS, type NormalisedInput } from '../../src/scanning/types.js';
import { differentialCorpus } from './differential-corpus.js';
import { ROOT } from '../support/scanning.js';
import { normalise as referenceNormalise } from './normalise-reference/index.js';

const NEW_LAYERS = /decoded:(?:json|html|base32|reversed)/;

/** `input` without the views of the layers the reference does not have; whether it had any. */
function withoutNewLayers(input: NormalisedInput): { input: NormalisedInput; added: boolean } {
  const views = input.views.filter((v) => !NEW_LAYERS.test(v.kind));
  if (views.length === input.views.length) return { input, added: false };
  return { input: Object.assign(Object.create(Object.getPrototypeOf(input) as object) as NormalisedInput, input, { views }), added: true };
}

const LEET_LETTER: Record<string, string> = { '0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g', '@': 'a', $: 's', '!': 'i', '|': 'l' };

/** `b` is `a` with some leet characters mapped to their letters, and nothing else changed. */
function onlyMoreLeet(b: string, a: string): boolean {
  if (b.length !== a.length || b === a) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && LEET_LETTER[a[i]!] !== b[i]) return false;
  return true;
}

/** As snapshot(), with the new layers' views set aside and decoded payloads compared apart. */
function compare(b: NormalisedInput, a: NormalisedInput, label: string): void {
  const { input, added } = withoutNewLayers(b);
  const sb = snapshot(input) as { signals: Record<string, number>; views: { text: string }[] };
  const sa = snapshot(a) as { signals: Record<string, number>; views: { text: string }[] };
  let moreLeet = false;
  sb.views.forEach((v, i) => {
    const ref = sa.views[i];
    if (ref !== undefined && onlyMoreLeet(v.text, ref.text)) {
      v.text = ref.text;
      moreLeet = true;
    }
  });
  if (moreLeet) {
    expect(sb.signals.leetspeakWords, label).to.be.greaterThan(sa.signals.leetspeakWords!);
    sb.signals.leetspeakWords = sa.signals.leetspeakWords!;
  }
  if (added) {
    expect(sb.signals.decodedPayloads, label).to.be.greaterThan(sa.signals.decodedPayloads!);
    for (const k of Object.keys(sa.signals)) {
      expect(sb.signals[k], `${label} signal ${k}`).to.be.at.least(sa.signals[k]!);
      sb.signals[k] = sa.signals[k]!;
    }
  }
  expect(sb, label).to.deep.equal(sa);
}

/** Everything a plugin can read from an input, as plain data. */
function snapshot(input: NormalisedInput): unknown {
  return {
    original: input.original,
    target: input.target,
    ascii: input.ascii,
    utf8: input.originalUtf8!.toString('base64'),
    signals: { ...input.signals },
    views: input.views.map((v) => {
      const n = v.text.length;
      const step = Math.max(1, Math.floor(n / 24));
      const maps: number[] = [];
      for (let s = 0; s <= n; s += step) {
        for (const len of [0, 1, 7]) {
          const o = v.toOriginal(s, s + len);
          maps.push(o.start, o.end);
        }
      }
      const whole = v.toOriginal(0, n);
      return { kind: v.kind, text: v.text, maps, whole: [whole.start, whole.end] };
    }),
  };
}

describe('scanning/normalise: identical to the previous normaliser', () => {
  it('on the development set, every probe set, the rule tests and disguises, for every target', function () {
    this.timeout(240_000);
    const { texts, sources } = differentialCorpus();
    expect(texts.length, JSON.stringify(sources)).to.be.greaterThan(500);
    const rules = new CompiledRules(loadRuleSet(join(ROOT, 'rules')));
    let views = 0;
    let nonAscii = 0;
    for (const target of TARGETS) {
      for (const text of texts) {
        const a = referenceNormalise(text, target, { triage: (t) => rules.triage(t, target) });
        const b = normalise(text, target, { triage: (t) => rules.triage(t, target) });
        compare(b, a, `${target}: ${JSON.stringify(text).slice(0, 200)}`);
        // And without a rule set (the standalone triage).
        compare(normalise(text, target), referenceNormalise(text, target), `${target} standalone: ${JSON.stringify(text).slice(0, 200)}`);
        views += b.views.length - 1;
        if (b.ascii === false) nonAscii++;
      }
    }
    // The comparison covered derived views and non-ASCII inputs, not only plain text.
    expect(views).to.be.greaterThan(300);
    expect(nonAscii).to.be.greaterThan(100);
  });
});
