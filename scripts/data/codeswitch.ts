/**
 * Code-switched augmentation (issue 24): copies of corpus rows with some of their concept words
 * (src/scanning/concepts/lexicon.yaml) swapped for the same concept in other languages, on both
 * sides: attacks ("Ignore all vorherigen instructions"), and benign rows that use the same words
 * harmlessly ("¿cómo puedo ignorar whitespace in git diff?"), so a foreign trigger word is learned
 * as context, not as an attack cue of its own.
 *
 * A copy keeps its parent's label, category, source, kind, lang and group (so it lands in the same
 * split, and a family held out in leave-one-family-out takes its copies with it); its generator is
 * `code-switch` and its origin `generated`. Only whole-word entries replace a word (an entry
 * ending in `*` is a stem, not a word). Deterministic for a seed.
 */
import { mulberry32 } from '../../src/util/prng.js';
import { loadLexicon, type Lexicon } from '../../src/scanning/concepts/lexicon.js';
import { Matcher } from '../../src/scanning/concepts/match.js';
import { makeRow, type CorpusRow } from './row.js';

export interface CodeSwitchOptions {
  seed: number;
  /** Share of the rows with at least `minHits` concept words that get a copy (0..1). */
  share: number;
  /** At most this many words swapped per copy (2). */
  maxSwaps?: number;
  minHits?: number;
}

export function codeSwitch(rows: CorpusRow[], o: CodeSwitchOptions, lexicon: Lexicon = loadLexicon()): CorpusRow[] {
  if (!(o.share >= 0 && o.share <= 1)) throw new Error(`codeSwitch: share must be between 0 and 1, got ${o.share}`);
  const matcher = new Matcher(lexicon);
  const rand = mulberry32(o.seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  // Whole-word entries per concept and language.
  const words = lexicon.concepts.map((c) => Object.fromEntries(Object.entries(c.entries).map(([l, es]) => [l, es.map((e) => e.term).filter((t) => !t.includes('*'))])));
  const out: CorpusRow[] = [];
  for (const row of rows) {
    if (o.share === 0 || row.text.length > 4000) continue;
    const hits = matcher.hits(row.text);
    if (hits.length < (o.minHits ?? 1) || rand() >= o.share) continue;
    // Non-overlapping hits, a few of them, replaced from the end so offsets stay valid.
    const chosen: typeof hits = [];
    for (const h of hits) if (chosen.every((c) => h.start >= c.end || h.end <= c.start)) chosen.push(h);
    const swaps = chosen.sort(() => rand() - 0.5).slice(0, o.maxSwaps ?? 2).sort((a, b) => b.start - a.start);
    let text = row.text;
    const langs: string[] = [];
    for (const h of swaps) {
      const byLang = words[h.concept]!;
      const options = Object.keys(byLang).filter((l) => l !== row.lang && byLang[l]!.length > 0);
      if (options.length === 0) continue;
      const lang = pick(options);
      text = text.slice(0, h.start) + pick(byLang[lang]!) + text.slice(h.end);
      langs.push(lang);
    }
    if (langs.length === 0 || text === row.text) continue;
    out.push(makeRow({ text, category: row.category, lang: row.lang, source: row.source, origin: 'generated', generator: 'code-switch', group: row.group, kind: row.kind }));
  }
  return out;
}
