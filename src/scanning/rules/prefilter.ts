/**
 * Builds the RE2.Set prefilters of one target.
 *
 * Each pattern goes in as a cheaper SUPERSET form: its most selective gap-free piece
 * (segment.ts) or, failing that, with large counts relaxed (relax.ts); the exact pattern later
 * confirms every candidate.
 *
 * Grouping matters more than anything else for speed. An RE2.Set's DFA has a cliff: past some
 * mix of patterns its states multiply, the DFA cache thrashes and the set slows down 20-500x.
 * Measured on the shipped rules (MB per CPU-second, bench corpus): 45 patterns in other scripts
 * alone ~470, mixed into 120 English ones ~10; English sets of 28 or 56 ~1.3-2x the cost of a
 * 7-pattern set, one particular set of 84 ~140x, all 168 ~600x. The cliff moves with the content:
 * a later rule set already fell off it with sets of 59 (~12 MB per CPU-s for all sets against
 * ~40 with sets of 45). So:
 *  - patterns with non-ASCII literals get sets of their own;
 *  - patterns that need a non-ASCII character (needsNonAscii) get sets that all-ASCII views skip;
 *  - sets hold at most SET_SIZE patterns, balanced. Each set pass costs ~2 ns per byte however
 *    few patterns it holds, so fewer sets are faster until the cliff: with the 2026-11-21 rules,
 *    sets of 60 (5 sets) ~1.2x sets of 40 (7), sets of 100 ~10x slower. Since the cliff moves
 *    with the content, CompiledRules also watches every set on real traffic and splits one that
 *    falls off it (CompiledRules.checkCliff): a wrong size costs a few MB of slow scanning, not
 *    a slow deployment.
 * Calibrating the grouping at start-up on a small sample was tried and dropped: a sample small
 * enough to be quick lets the DFA cache every state and never shows the cliff.
 * The normaliser's triage patterns ride in the last set.
 */
import RE2 from 're2';
import { TRIAGE_PATTERNS } from '../normalise/triage.js';
import { requiredAtoms } from './atoms.js';
import { relaxPattern } from './relax.js';
import { prefilterSegment } from './segment.js';

type RE2Set = InstanceType<typeof RE2.Set>;

const SET_SIZE = 60;

/** The prefilter form of one pattern (always a superset of it, always compiles). */
export function prefilterForm(pattern: string): string {
  for (const candidate of [prefilterSegment(pattern), relaxPattern(pattern)]) {
    if (candidate === null || candidate === pattern) continue;
    try {
      new RE2(candidate, 'iu');
      return candidate;
    } catch {
      /* try the next form */
    }
  }
  return pattern;
}

export interface PrefilterSets {
  sets: RE2Set[];
  /** Set k covers positions [bases[k], bases[k] + size) of `order`. */
  bases: number[];
  /** order[position] = index into the `sources` given (the first of `members[position]`). */
  order: number[];
  /** members[position] = every index into `sources` whose form is the one at that position:
   * identical sources take one slot in one set (rules sharing a pattern, such as the role-play
   * framing several rules hold, would otherwise fill a set with copies of one big pattern). */
  members: number[][];
  /** Positions (in `order`, after every set's range) of patterns no set could hold: RE2
   * refused even a set of one (program too large). They are candidates for every text. */
  always: number[];
  /** Which set holds the normaliser's triage patterns, and from which set-local index. */
  triageSet: number;
  triageOffset: number;
  /** Per set: every pattern in it needs a non-ASCII character to match, so the set need not
   * run over a view that is all ASCII (most traffic). */
  nonAsciiOnly: boolean[];
}

/**
 * `needsNonAscii[i]`: pattern i cannot match text that is all ASCII (see needsNonAscii()).
 * Such patterns get sets of their own, placed first, which runSets skips for ASCII views.
 */
export function buildPrefilterSets(allSources: string[], maxPerSet = SET_SIZE, needsNonAscii: readonly boolean[] = []): PrefilterSets {
  // One slot per distinct source. A slot may skip all-ASCII views only if every source in it
  // may (the same form can stand for patterns that differ in that).
  const slotOf = new Map<string, number>();
  const sources: string[] = [];
  const slotMembers: number[][] = [];
  const slotNeedsNonAscii: boolean[] = [];
  allSources.forEach((src, i) => {
    const slot = slotOf.get(src);
    if (slot === undefined) {
      slotOf.set(src, sources.length);
      sources.push(src);
      slotMembers.push([i]);
      slotNeedsNonAscii.push(needsNonAscii[i] === true);
    } else {
      slotMembers[slot]!.push(i);
      slotNeedsNonAscii[slot] = slotNeedsNonAscii[slot]! && needsNonAscii[i] === true;
    }
  });
  const ascii: number[] = [];
  const other: number[] = [];
  const onlyNonAscii: number[] = [];
  sources.forEach((src, i) => (slotNeedsNonAscii[i] ? onlyNonAscii : /[^\x00-\x7f]/.test(src) ? other : ascii).push(i));
  const groups: Array<{ g: number[]; skippable: boolean }> = [];
  for (const [part, skippable] of [[onlyNonAscii, true], [ascii, false], [other, false]] as const) {
    if (part.length === 0) continue;
    const n = Math.ceil(part.length / maxPerSet);
    const per = Math.ceil(part.length / n);
    for (let i = 0; i < part.length; i += per) groups.push({ g: part.slice(i, i + per), skippable });
  }
  // A set RE2 refuses to compile (its program is over RE2's memory budget) is split in two
  // until it fits; a single pattern that never fits is checked on every text instead.
  const fitted: Array<{ g: number[]; skippable: boolean; set: RE2Set }> = [];
  const tooBig: number[] = [];
  const queue = [...groups];
  while (queue.length > 0) {
    const { g, skippable } = queue.shift()!;
    try {
      fitted.push({ g, skippable, set: new RE2.Set(g.map((i) => sources[i]!), 'iu') });
    } catch {
      if (g.length === 1) tooBig.push(g[0]!);
      else queue.unshift({ g: g.slice(0, Math.ceil(g.length / 2)), skippable }, { g: g.slice(Math.ceil(g.length / 2)), skippable });
    }
  }
  const sets: RE2Set[] = [];
  const bases: number[] = [];
  const order: number[] = [];
  const nonAsciiOnly: boolean[] = [];
  for (const { g, skippable, set } of fitted) {
    bases.push(order.length);
    order.push(...g);
    sets.push(set);
    nonAsciiOnly.push(skippable);
  }
  // The triage patterns ride in the last set (never a skippable one: triage runs on every
  // text), or get a set of their own if it cannot take them.
  const last = fitted[fitted.length - 1];
  let triageSet: number;
  let triageOffset: number;
  try {
    if (last === undefined || last.skippable) throw new Error('no set to share');
    sets[sets.length - 1] = new RE2.Set([...last.g.map((i) => sources[i]!), ...TRIAGE_PATTERNS], 'iu');
    triageSet = sets.length - 1;
    triageOffset = last.g.length;
  } catch {
    bases.push(order.length);
    sets.push(new RE2.Set(TRIAGE_PATTERNS as string[], 'iu'));
    nonAsciiOnly.push(false);
    triageSet = sets.length - 1;
    triageOffset = 0;
  }
  const always = tooBig.map((i) => {
    order.push(i);
    return order.length - 1;
  });
  // Positions so far index distinct sources (slots); hand back indices into the caller's list.
  const members = order.map((slot) => slotMembers[slot]!);
  return { sets, bases, order: members.map((m) => m[0]!), members, always, triageSet, triageOffset, nonAsciiOnly };
}

/** Characters whose RE2 case-insensitive match includes an ASCII character (KELVIN SIGN ~ k,
 * LONG S ~ s, ...): found once by asking RE2 itself, so the check follows its folding tables. */
const ASCII_TEXT = Buffer.from(Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join(''));
const foldsToAscii = new Map<number, boolean>();
export function matchesAscii(cp: number): boolean {
  let r = foldsToAscii.get(cp);
  if (r === undefined) {
    // Only called for cp >= 0x80: never a regex metacharacter.
    r = new RE2(String.fromCodePoint(cp), 'iu').test(ASCII_TEXT);
    foldsToAscii.set(cp, r);
  }
  return r;
}

/** True when every match of `pattern` contains a non-ASCII character (one that no ASCII
 * character matches case-insensitively): every literal it requires (atoms.ts) has one. */
export function needsNonAscii(pattern: string): boolean {
  const atoms = requiredAtoms(pattern, 1);
  if (atoms === null || atoms.length === 0) return false;
  return atoms.every((a) => {
    for (const ch of a) {
      const cp = ch.codePointAt(0)!;
      if (cp >= 0x80 && !matchesAscii(cp)) return true;
    }
    return false;
  });
}
