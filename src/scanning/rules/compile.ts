/**
 * The compiled rule set (a RuleMatcher). Per target, ONE pass of a literal automaton over a view
 * (literals.ts) names the patterns that may match, whatever the number of rules: every pattern
 * has a literal condition (atoms.ts requiredNeed) that each of its matches meets. The few
 * patterns without a usable one sit in small RE2.Sets in a cheaper superset form (prefilter.ts).
 * Only rules whose condition those candidates satisfy run their exact RE2s, which confirm the
 * match and give the spans.
 *
 * The normaliser's triage (which views to build) is decided over the same folded original text:
 * a JavaScript check that is true whenever a triage pattern may match, then the triage patterns
 * themselves (RE2) only when it is.
 */
import RE2 from 're2';
import { log } from '../../log.js';
import { exactTriage, NOTHING, toUtf8, triageMaybe, type Triage } from '../normalise/triage.js';
import { foldPunctuation } from '../normalise/unicode.js';
import type { NormalisedInput, RuleHit, RuleMatcher, Span, Target } from '../types.js';
import { TARGETS } from '../types.js';
import type { RuleSet } from './load.js';
import { literalShare, requiredNeed } from './atoms.js';
import { groupNeeds, holds, LiteralAutomaton, needLiterals, type IdNeed } from './literals.js';
import { buildPrefilterSets, needsNonAscii, prefilterForm } from './prefilter.js';
import { withoutCaptures } from './relax.js';
import { requiredMatches, type RuleSpec } from './schema.js';

const MAX_SPANS_PER_PATTERN = 8;
/** The candidate sieve (CompiledRules.sift): reconsidered every SIEVE_EVERY views, for patterns
 * named at least SIEVE_MIN times and confirmed in under SIEVE_RATE of them, at most SIEVE_SIZE. */
const SIEVE_EVERY = 256;
const SIEVE_MIN = 32;
const SIEVE_RATE = 0.25;
const SIEVE_SIZE = 8;
/** Lightest literal (atoms.ts literalWeight) a pattern with no better one is prefiltered by. */
const WEAK_ATOM_WEIGHT = 1.5;

interface PatternRef {
  rule: number; // index into TargetRules.rules
  /** Exact pattern without capturing groups (RE2 answers from its DFA), global: confirms a
   * candidate and gives its spans in one go, on the view's UTF-8 bytes. Shared by every rule
   * with the same pattern (the role-play rules share their framing pattern). */
  spans: RE2;
  /** Index of `spans` among the target's distinct exact patterns: its result is computed once
   * per view however many rules hold it. */
  exact: number;
  /** How often the exact pattern was tried and confirmed (in this worker): a rule that needs
   * several patterns tries the one least likely to confirm first and stops when the rest can
   * no longer reach the count. Only the order of work depends on these, never the result. */
  stats: { tries: number; hits: number; sifted: number };
  /** The pattern as written. */
  source: string;
}

type RE2Set = InstanceType<typeof RE2.Set>;

interface TargetRules {
  rules: RuleSpec[];
  need: Int32Array;
  patterns: PatternRef[];
  /** Literal automaton over the required literals of every pattern (null: none has any). */
  auto: LiteralAutomaton | null;
  /** Per pattern: its literal condition (true: the pattern sits in a prefilter set instead). */
  needs: IdNeed[];
  /** Per literal id: the distinct exact patterns (PatternRef.exact) it triggers (see triggers). */
  byLiteral: number[][];
  /** Per distinct exact pattern: its condition and the pattern indices holding it. */
  exactNeeds: IdNeed[];
  exactPatterns: number[][];
  /** Literal ids seen in the current view are stamped with the current stamp. */
  seen: Int32Array;
  /** Literal groups (literals.ts groupNeeds) met in the current view, stamped; per literal id,
   * the groups holding it. */
  groupSeen: Int32Array;
  literalGroups: number[][];
  /** Exact patterns already judged for the current view (stamped). */
  judged: Int32Array;
  /** Prefilter sets, in the order they run, for the patterns without a usable literal
   * condition; they index `setPatterns`. */
  groups: SetGroup[];
  /** Pattern index at each set position. */
  setPatterns: number[];
  /** Prefilter form of the pattern at each set position (to rebuild a set when it is split). */
  forms: string[];
  /** Patterns no set could hold: candidates for every text. */
  always: number[];
  /** Number of distinct exact patterns (PatternRef.exact < exactCount). */
  exactCount: number;
  /** Per distinct exact pattern: its source and stats (any PatternRef holding it). */
  exactRefs: PatternRef[];
  /** The sieve for noisy candidates (see CompiledRules.sift), or null. */
  sieve: Sieve | null;
  /** Views matched since the sieve was last reconsidered. */
  sinceSieve: number;
}

/** An RE2.Set of the prefilter forms of the exact patterns the automaton names most often in
 * vain: run once over a view holding any of them as candidates, it drops those it does not
 * match before their exact RE2s run. */
interface Sieve {
  set: RE2Set;
  /** Set index -> exact pattern. */
  exacts: number[];
  member: Uint8Array;
}

/** One prefilter set: set positions [start, end). */
interface SetGroup {
  set: RE2Set;
  start: number;
  end: number;
  /** Skip it on all-ASCII views (its patterns need a non-ASCII character). */
  nonAsciiOnly: boolean;
  /** Sampled calls in the current window, and how many of them ran over the cliff threshold
   * (see CompiledRules.checkCliff). The first WARM_WINDOWS windows after a set is built only
   * warm its DFA up and are not judged. */
  windows: number;
  calls: number;
  slow: number;
}

export interface CompiledRulesOptions {
  /** false: run every prefilter set on every view (tests compare both). */
  skipNonAsciiSets?: boolean;
  /** A set whose sampled calls mostly cost more than this (ns per byte, on real traffic) is
   * split in two. Healthy warm sets cost 2-5, cold ones (DFA still being built: the first few
   * thousand texts) up to ~40; over the cliff, 150-500. Default 100. */
  cliffNsPerByte?: number;
  /** Most patterns per prefilter set (default prefilter.ts SET_SIZE). */
  maxSetSize?: number;
  /** false: no literal automaton, every pattern in RE2.Set prefilters (the matcher before the
   * automaton; tests compare both). Default true. */
  literalPrefilter?: boolean;
}

/** Every SAMPLE_EVERY-th text of at least SAMPLE_MIN_BYTES (below, the fixed cost of a call
 * dominates) is timed set by set; a set is judged every WINDOW_CALLS samples, and split when
 * most of them were slow: one sample stretched by the OS descheduling the thread does not
 * count for more than one. */
const SAMPLE_EVERY = 4;
const SAMPLE_MIN_BYTES = 256;
const WINDOW_CALLS = 128;
const WARM_WINDOWS = 2;

/** A view's text as matched, and its UTF-8 bytes built on first use (RE2 runs on a Buffer). */
class ViewText {
  private b: Buffer | null = null;
  constructor(readonly text: string) {}
  get bytes(): Buffer {
    return (this.b ??= toUtf8(this.text));
  }
}

export class CompiledRules implements RuleMatcher {
  readonly version: string;
  readonly ruleCount: number;
  private readonly byTarget = new Map<Target, TargetRules>();
  /** The last original text triaged, so match() does not pass over it a second time.
   * `matched` is the text the prefilter saw (punctuation folded). */
  private cache: { text: string; target: Target; indices: number[]; matched: ViewText } | null = null;
  private warnedFallback = false;
  /** The last frozen input matched and its hits: several plugins (rules, obfuscation) ask
   * about the same input, and the engine freezes it, so the answer cannot have changed. */
  private lastMatch: { input: NormalisedInput; hits: RuleHit[] } | null = null;

  /** Prefilter sets split at run time because they fell off the DFA cliff (see checkCliff). */
  prefilterSplits = 0;
  private readonly cliffNsPerByte: number;
  private sampleTick = 0;
  private stamp = 0;
  private readonly found: number[] = [];
  /** Set by candidates(..., true): triageMaybe() of the text. */
  private triageMaybe = false;

  constructor(readonly ruleSet: RuleSet, options: CompiledRulesOptions = {}) {
    const skipNonAscii = options.skipNonAsciiSets ?? true;
    const literal = options.literalPrefilter ?? true;
    this.cliffNsPerByte = options.cliffNsPerByte ?? 100;
    this.version = ruleSet.version;
    const enabled = ruleSet.rules.filter((r) => r.enabled !== false);
    this.ruleCount = enabled.length;
    // Automata are shared by targets with the same literals (most rules apply to several).
    const automata = new Map<string, LiteralAutomaton>();
    const needCache = new Map<string, ReturnType<typeof requiredNeed>>();
    for (const target of TARGETS) {
      const rules = enabled.filter((r) => r.targets.includes(target));
      const patterns: PatternRef[] = [];
      const exactBySource = new Map<string, Pick<PatternRef, 'spans' | 'exact' | 'stats' | 'source'>>();
      const sources: string[] = [];
      rules.forEach((rule, ri) => {
        for (const p of rule.patterns) {
          let exact = exactBySource.get(p);
          if (exact === undefined) {
            exact = { spans: spanRegex(p), exact: exactBySource.size, stats: { tries: 0, hits: 0, sifted: 0 }, source: p };
            exactBySource.set(p, exact);
          }
          patterns.push({ rule: ri, ...exact });
          sources.push(p);
        }
      });
      // Literal conditions; patterns without one go to RE2.Set prefilters.
      const conds = sources.map((p) => {
        if (!literal) return null;
        // A pattern with no literal of 3+ letters may still require short ones ('+', 'hi' and
        // 'ai' and ','): a weak condition, but cheaper than an RE2.Set pass over every view.
        if (!needCache.has(p)) needCache.set(p, requiredNeed(p) === true ? requiredNeed(p, WEAK_ATOM_WEIGHT) : requiredNeed(p));
        const n = needCache.get(p)!;
        return n === true ? null : n;
      });
      const literals = [...new Set(conds.flatMap((n) => (n === null ? [] : needLiterals(n))))].sort();
      let auto: LiteralAutomaton | null = null;
      if (literals.length > 0) {
        const key = literals.join('\u0000');
        auto = automata.get(key) ?? new LiteralAutomaton(literals);
        automata.set(key, auto);
      }
      const needs: IdNeed[] = conds.map((n) => (n === null || auto === null ? true : auto.compile(n)));
      const byLiteral: number[][] = auto === null ? [] : auto.literals.map(() => []);
      // Several rules may share a pattern (the role-play framing): judged once per view.
      const exactNeeds: IdNeed[] = new Array(exactBySource.size).fill(true);
      const exactPatterns: number[][] = new Array(exactBySource.size);
      const setSources: string[] = [];
      const setPatterns: number[] = [];
      const nonAscii: boolean[] = [];
      needs.forEach((n, pi) => {
        if (n === true) {
          const form = prefilterForm(sources[pi]!);
          setSources.push(form);
          setPatterns.push(pi);
          // The form is a superset of the pattern: either one needing non-ASCII is enough.
          nonAscii.push(needsNonAscii(sources[pi]!) || needsNonAscii(form));
        } else {
          const e = patterns[pi]!.exact;
          if (exactPatterns[e] === undefined) {
            exactPatterns[e] = [];
            exactNeeds[e] = n;
            for (const id of new Set(triggers(n, auto!))) byLiteral[id]!.push(e);
          }
          exactPatterns[e]!.push(pi);
        }
      });
      const grouped = groupNeeds(exactNeeds, auto === null ? 0 : auto.literals.length);
      let groups: SetGroup[] = [];
      let order: number[] = [];
      let always: number[] = [];
      if (setSources.length > 0) {
        const built = buildPrefilterSets(setSources, options.maxSetSize, nonAscii);
        groups = built.sets.map((set, k) => ({
          set,
          start: built.bases[k]!,
          end: built.bases[k]! + set.size,
          nonAsciiOnly: skipNonAscii && built.nonAsciiOnly[k]!,
          windows: 0,
          calls: 0,
          slow: 0,
        }));
        order = built.order;
        always = built.always.map((pos) => setPatterns[order[pos]!]!);
      }
      this.byTarget.set(target, {
        rules,
        need: Int32Array.from(rules.map((r) => requiredMatches(r))),
        patterns,
        auto,
        needs,
        byLiteral,
        seen: new Int32Array(auto === null ? 0 : auto.literals.length),
        groupSeen: new Int32Array(grouped.count),
        literalGroups: grouped.byLiteral,
        judged: new Int32Array(exactBySource.size),
        exactRefs: [...exactBySource.values()].map((x) => patterns.find((p) => p.exact === x.exact)!),
        sieve: null,
        sinceSieve: 0,
        exactNeeds: grouped.needs,
        exactPatterns,
        groups,
        // Positions past the sets' ranges are the `always` ones.
        setPatterns: order.slice(0, order.length - always.length).map((i) => setPatterns[i]!),
        forms: order.slice(0, order.length - always.length).map((i) => setSources[i]!),
        always,
        exactCount: exactBySource.size,
      });
    }
  }

  /** Triage and rule prefilter over the original text; the prefilter result is kept for
   * match(). Pass as normalise()'s `triage`. */
  triage(text: string, target: Target): Triage {
    const t = this.byTarget.get(target)!;
    // Typographic quotes, dashes and spaces are folded one-for-one in the original view, so
    // "you’re" meets a pattern written "you're" without a normalised view (see PUNCT_FOLD).
    // Triage sees the folded text too: non-ASCII that is only such punctuation needs no view.
    const matched = new ViewText(foldPunctuation(text));
    const indices = this.candidates(t, matched, true);
    this.cache = { text, target, indices, matched };
    return this.triageMaybe ? exactTriage(matched.bytes) : NOTHING;
  }

  /** Rule patterns per prefilter set of `target` (the patterns the literal automaton cannot
   * prefilter), in run order; `asciiSkipped` marks the sets all-ASCII views skip; `literal`:
   * patterns prefiltered by the automaton, `literals` and `states` its size. For benchmarks
   * and operators. */
  prefilterLayout(target: Target): { patterns: number[]; asciiSkipped: boolean[]; literal: number; literals: number; states: number } {
    const t = this.byTarget.get(target);
    const groups = t?.groups ?? [];
    return {
      patterns: groups.map((g) => g.end - g.start),
      asciiSkipped: groups.map((g) => g.nonAsciiOnly),
      literal: t === undefined ? 0 : t.needs.filter((n) => n !== true).length,
      literals: t?.auto?.literals.length ?? 0,
      states: t?.auto?.states ?? 0,
    };
  }

  match(input: NormalisedInput): RuleHit[] {
    const last = this.lastMatch;
    if (last !== null && last.input === input && Object.isFrozen(input) && Object.isFrozen(input.views)) return copyHits(last.hits);
    const hits = this.matchViews(input);
    this.lastMatch = Object.isFrozen(input) && Object.isFrozen(input.views) ? { input, hits: copyHits(hits) } : null;
    return hits;
  }

  private matchViews(input: NormalisedInput): RuleHit[] {
    const t = this.byTarget.get(input.target);
    if (t === undefined || t.rules.length === 0) return [];
    const hits: RuleHit[] = [];
    const hitRules = new Set<number>();
    const counts = new Int32Array(t.rules.length);
    for (let v = 0; v < input.views.length; v++) {
      const view = input.views[v]!;
      let indices: number[];
      let vt: ViewText; // what the prefilter and spans see; same length as view.text
      const c = this.cache;
      if (v === 0 && c !== null && c.text === view.text && c.target === input.target) {
        indices = c.indices;
        vt = c.matched;
      } else {
        vt = new ViewText(v === 0 ? foldPunctuation(view.text) : view.text);
        indices = this.candidates(t, vt);
      }
      if (indices.length === 0) continue;
      const text = vt.text;
      const bytes = vt.bytes;
      if (t.sieve !== null) indices = this.sift(t, t.sieve, indices, bytes);
      if (++t.sinceSieve >= SIEVE_EVERY) this.reconsiderSieve(t);
      if (indices.length === 0) continue;
      let byteMap: Int32Array | null = null;
      // Spans of each exact pattern in this view (original offsets), computed at most once.
      const memo: Array<Span[] | undefined> = new Array(t.exactCount);
      const spansOf = (ref: PatternRef): Span[] => {
        let found = memo[ref.exact];
        if (found !== undefined) return found;
        const out: Span[] = [];
        // Spans come from the same bytes (no second UTF-8 conversion); byte offsets equal
        // UTF-16 offsets for ASCII, else they go through a map built once per view.
        if (bytes.length === text.length) {
          collectSpans(ref.spans, bytes, (s, e) => out.push(view.toOriginal(s, e)));
        } else {
          const m = (byteMap ??= utf16Offsets(text, bytes.length));
          collectSpans(ref.spans, bytes, (s, e) => out.push(view.toOriginal(m[s]!, m[e]!)));
        }
        ref.stats.tries++;
        if (out.length > 0) ref.stats.hits++;
        memo[ref.exact] = found = out;
        return found;
      };
      counts.fill(0);
      for (const i of indices) counts[t.patterns[i]!.rule]!++;
      for (let r = 0; r < t.rules.length; r++) {
        const need = t.need[r]!;
        if (counts[r]! < need || hitRules.has(r)) continue;
        // The prefilter is a superset: confirm with the exact patterns, which also give spans.
        const candidates: PatternRef[] = [];
        for (const pi of indices) if (t.patterns[pi]!.rule === r) candidates.push(t.patterns[pi]!);
        if (need > 1) candidates.sort(byConfirmRate);
        const spans: Span[] = [];
        let confirmed = 0;
        let failed = 0;
        for (const ref of candidates) {
          const found = spansOf(ref);
          if (found.length > 0) {
            confirmed++;
            for (const sp of found) spans.push(sp);
          } else if (candidates.length - ++failed < need) {
            break; // the rest cannot reach the count
          }
        }
        if (confirmed < t.need[r]!) continue;
        hitRules.add(r);
        const rule = t.rules[r]!;
        hits.push({
          ruleId: rule.id,
          file: rule.file,
          title: rule.title,
          attackType: rule.attack_type,
          severity: rule.severity,
          confidence: rule.confidence,
          spans: dedupeSpans(spans),
          viewKind: view.kind,
        });
      }
    }
    return hits;
  }

  /** Candidate pattern indices for a view: the literal automaton, then the prefilter sets of
   * the patterns it cannot judge. */
  private candidates(t: TargetRules, vt: ViewText, triage = false): number[] {
    const text = vt.text;
    this.triageMaybe = false;
    if (text.length === 0) return [];
    const out: number[] = [];
    if (t.auto === null) {
      if (triage) this.triageMaybe = triageMaybe(text);
    } else {
      const stamp = ++this.stamp;
      const found = this.found;
      found.length = 0;
      // The original view: the triage check rides in the same loop.
      if (triage) this.triageMaybe = t.auto.scanTriage(text, t.seen, stamp, found);
      else t.auto.scan(text, t.seen, stamp, found);
      for (const id of found) for (const g of t.literalGroups[id]!) t.groupSeen[g] = stamp;
      for (const id of found) {
        for (const e of t.byLiteral[id]!) {
          if (t.judged[e] === stamp) continue;
          t.judged[e] = stamp;
          if (holds(t.exactNeeds[e]!, t.seen, t.groupSeen, stamp)) for (const pi of t.exactPatterns[e]!) out.push(pi);
        }
      }
    }
    if (t.groups.length > 0) this.runSets(t, vt, out);
    for (const i of t.always) out.push(i);
    return out;
  }

  /**
   * Drops the candidates the sieve rules out: a pattern's prefilter form matches whenever the
   * pattern does, so only patterns that cannot match are dropped. One RE2.Set pass replaces the
   * exact RE2s of the noisy candidates of this view.
   */
  private sift(t: TargetRules, sieve: Sieve, indices: number[], bytes: Buffer): number[] {
    let any = false;
    for (const i of indices) if (sieve.member[t.patterns[i]!.exact] === 1) any = true;
    if (!any) return indices;
    let pass: number[];
    try {
      pass = sieve.set.match(bytes);
    } catch {
      return indices; // the DFA ran out of memory: confirm every candidate instead
    }
    const kept = new Uint8Array(sieve.member.length);
    for (const k of pass) kept[sieve.exacts[k]!] = 1;
    const out: number[] = [];
    const dropped = new Set<number>();
    for (const i of indices) {
      const e = t.patterns[i]!.exact;
      if (sieve.member[e] === 1 && kept[e] === 0) dropped.add(e);
      else out.push(i);
    }
    for (const e of dropped) t.exactRefs[e]!.stats.sifted++;
    return out;
  }

  /**
   * Every SIEVE_EVERY views: the exact patterns named as candidates at least SIEVE_MIN times
   * and confirmed less than SIEVE_RATE of them (tries plus sifted: both are candidacies) go in
   * the sieve, the noisiest first. Only which work is done depends on this, never the answer.
   */
  private reconsiderSieve(t: TargetRules): void {
    t.sinceSieve = 0;
    const old = t.sieve?.exacts ?? [];
    if (old.length >= SIEVE_SIZE) return;
    // Members stay (a new set starts with a cold DFA): only new noisy patterns are added.
    const noisy: Array<[number, number]> = [];
    t.exactRefs.forEach((ref, e) => {
      const seen = ref.stats.tries + ref.stats.sifted;
      if (t.sieve?.member[e] !== 1 && seen >= SIEVE_MIN && ref.stats.hits < SIEVE_RATE * seen) noisy.push([e, seen - ref.stats.hits]);
    });
    if (noisy.length === 0) return;
    noisy.sort((a, b) => b[1] - a[1]);
    const exacts = [...old, ...noisy.slice(0, SIEVE_SIZE - old.length).map(([e]) => e)];
    try {
      const member = new Uint8Array(t.exactCount);
      for (const e of exacts) member[e] = 1;
      t.sieve = { set: new RE2.Set(exacts.map((e) => prefilterForm(t.exactRefs[e]!.source)), 'iu'), exacts, member };
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'could not build the candidate sieve');
      t.sinceSieve = -Infinity; // do not try again
    }
  }

  /** Appends the candidates of the prefilter sets. */
  private runSets(t: TargetRules, vt: ViewText, out: number[]): void {
    const bytes = vt.bytes;
    const mark = out.length;
    try {
      const ascii = bytes.length === vt.text.length;
      const sample = bytes.length >= SAMPLE_MIN_BYTES && ++this.sampleTick % SAMPLE_EVERY === 0;
      for (const g of t.groups) {
        if (ascii && g.nonAsciiOnly) continue;
        const t0 = sample ? performance.now() : 0;
        const found = g.set.match(bytes);
        if (sample) {
          if (((performance.now() - t0) * 1e6) / bytes.length > this.cliffNsPerByte) g.slow++;
          g.calls++;
        }
        for (const i of found) out.push(t.setPatterns[g.start + i]!);
      }
      if (sample) this.checkCliff(t);
    } catch (err) {
      // The set's DFA ran out of memory on a pathological input: fall back to one pattern at
      // a time (slower, same answer) rather than miss a threat.
      if (!this.warnedFallback) {
        this.warnedFallback = true;
        log.warn({ err: (err as Error).message }, 'RE2.Set match failed; matching patterns one by one');
      }
      out.length = mark;
      for (const i of t.setPatterns) {
        const p = t.patterns[i]!;
        p.spans.lastIndex = 0;
        if (p.spans.test(bytes)) out.push(i);
        p.spans.lastIndex = 0;
      }
    }
  }

  /**
   * An RE2.Set's DFA has a cliff (prefilter.ts): past some mix of patterns its states multiply,
   * its cache thrashes and it runs 20-500x slower. Where the cliff is depends on the rule
   * content and on the traffic, so sets are sized for speed and watched on real traffic: a set
   * whose sampled cost per byte is over the threshold is split in two (same patterns, so the
   * same answers), and the halves are watched in turn. Since the literal automaton took over,
   * only the few patterns without a usable literal condition are in sets.
   */
  private checkCliff(t: TargetRules): void {
    for (let k = 0; k < t.groups.length; k++) {
      const g = t.groups[k]!;
      if (g.calls < WINDOW_CALLS) continue;
      const slowShare = g.slow / g.calls;
      g.calls = 0;
      g.slow = 0;
      if (++g.windows <= WARM_WINDOWS) continue;
      if (slowShare <= 0.5 || g.end - g.start < 2) continue;
      const mid = g.start + ((g.end - g.start) >> 1);
      const half = (start: number, end: number): SetGroup => ({
        set: new RE2.Set(t.forms.slice(start, end), 'iu'),
        start,
        end,
        nonAsciiOnly: g.nonAsciiOnly,
        windows: 0,
        calls: 0,
        slow: 0,
      });
      try {
        t.groups.splice(k, 1, half(g.start, mid), half(mid, g.end));
        this.prefilterSplits++;
        log.info({ patterns: g.end - g.start, slowShare, thresholdNsPerByte: this.cliffNsPerByte, sets: t.groups.length }, 'prefilter set too slow on this traffic (RE2 DFA cliff): split in two');
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'could not split a slow prefilter set');
      }
      return; // one split per check: the groups array changed
    }
  }
}

/** Estimated share of texts meeting `need` (atoms.ts literalShare, parts independent). */
function needShare(need: IdNeed, auto: LiteralAutomaton): number {
  if (need === true) return 1;
  if (typeof need === 'number') return literalShare(auto.literals[need]!);
  if ('group' in need) return 1; // not met before grouping
  if ('all' in need) return need.all.reduce((p: number, x) => p * needShare(x, auto), 1);
  return Math.min(1, need.any.reduce((p: number, x) => p + needShare(x, auto), 0));
}

/**
 * Literals whose presence makes a pattern worth judging: a condition can only hold if one of
 * them was found (for `all`, those of its most selective part), so a pattern is looked at only
 * when one turns up rather than whenever any of its literals (often common words) does.
 */
function triggers(need: IdNeed, auto: LiteralAutomaton): number[] {
  if (need === true) return [];
  if (typeof need === 'number') return [need];
  if ('group' in need) return []; // not met before grouping
  if ('any' in need) return need.any.flatMap((x) => triggers(x, auto));
  let best = need.all[0]!;
  let bestShare = needShare(best, auto);
  for (const x of need.all) {
    const share = needShare(x, auto);
    if (share < bestShare) [best, bestShare] = [x, share];
  }
  return triggers(best, auto);
}

/** Callers may change what they get; the memo keeps its own copy. */
function copyHits(hits: RuleHit[]): RuleHit[] {
  return hits.map((h) => ({ ...h, spans: h.spans.map((s) => ({ start: s.start, end: s.end })) }));
}

/** Least likely to confirm first (with a prior of 1 in 2 for patterns not tried yet). */
function byConfirmRate(a: PatternRef, b: PatternRef): number {
  return (a.stats.hits + 1) / (a.stats.tries + 2) - (b.stats.hits + 1) / (b.stats.tries + 2);
}

/** byte offset -> UTF-16 offset for the UTF-8 encoding of `text`. */
function utf16Offsets(text: string, byteLength: number): Int32Array {
  const map = new Int32Array(byteLength + 1);
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    let width = c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
    const start = i;
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        width = 4;
        i++;
      }
    }
    for (let k = 0; k < width && b + k < byteLength; k++) map[b + k] = start;
    b += width;
  }
  map[Math.min(b, byteLength)] = text.length;
  return map;
}

/** Pushes up to MAX_SPANS_PER_PATTERN matches; returns how many. */
function collectSpans(re: RE2, bytes: Buffer, push: (start: number, end: number) => void): number {
  re.lastIndex = 0;
  let n = 0;
  for (; n < MAX_SPANS_PER_PATTERN; n++) {
    const m = re.exec(bytes);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    push(start, end);
    if (end === start) re.lastIndex = end + 1; // never loop on an empty match
  }
  re.lastIndex = 0;
  return n;
}

function spanRegex(pattern: string): RE2 {
  try {
    return new RE2(withoutCaptures(pattern), 'giu');
  } catch {
    return new RE2(pattern, 'giu');
  }
}

export function dedupeSpans(spans: Span[]): Span[] {
  if (spans.length < 2) return spans;
  const sorted = [...spans].sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Span[] = [sorted[0]!];
  for (let i = 1; i < sorted.length; i++) {
    const s = sorted[i]!;
    const last = out[out.length - 1]!;
    if (s.start === last.start && s.end === last.end) continue;
    out.push(s);
  }
  return out;
}

/** Compiles a rule set; tiny helper so callers need not know the class. */
export function compileRules(ruleSet: RuleSet): CompiledRules {
  return new CompiledRules(ruleSet);
}
