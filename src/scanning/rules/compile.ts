/**
 * The compiled rule set (a RuleMatcher). Per target, the patterns of all rules go into RE2.Sets
 * used as a prefilter: one pass over a view names the patterns that may match, whatever the
 * number of rules. Only rules whose condition those candidates satisfy run their exact RE2s,
 * which confirm the match and give the spans.
 *
 * The prefilter holds each pattern in a cheaper superset form, grouped into sets that stay clear
 * of the RE2.Set DFA cliff (prefilter.ts): one set of every shipped pattern as written measured
 * ~1-2 MB/s. The normaliser's triage patterns ride in the last set of each target, so the
 * original text is passed over once for both.
 */
import RE2 from 're2';
import { log } from '../../log.js';
import { NOTHING, TRIAGE_PATTERNS, toUtf8, triageFromMatches, type Triage } from '../normalise/triage.js';
import { foldPunctuation } from '../normalise/unicode.js';
import type { NormalisedInput, RuleHit, RuleMatcher, Span, Target } from '../types.js';
import { TARGETS } from '../types.js';
import type { RuleSet } from './load.js';
import { buildPrefilterSets, needsNonAscii, prefilterForm } from './prefilter.js';
import { withoutCaptures } from './relax.js';
import { vectorscanAddon, vectorscanDatabase, vectorscanUnavailableReason, type VectorscanDatabase } from './vectorscan.js';
import { requiredMatches, type RuleSpec } from './schema.js';
import { cachedWordForms } from './word-form-cache.js';
import { buildWordTables, wordMatcher, type WordMatcher } from './word-prefilter.js';
import { nativeText, nativeTextUnavailableReason } from '../native-text.js';

const MAX_SPANS_PER_PATTERN = 8;

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
  stats: { tries: number; hits: number };
}

type RE2Set = InstanceType<typeof RE2.Set>;

/** Prefilter sets and the positions they stand for. */
interface SetLayout {
  /** In the order they run. */
  groups: SetGroup[];
  /** Layout index -> prefilter position (null: the same number). Groups cover layout indices. */
  positionOf: Int32Array | null;
  /** Prefilter form at each layout index (to rebuild a set when it is split). */
  forms: string[];
}

/** The word-level prefilter for all-ASCII views (word-prefilter.ts): the forms it can read as
 * words, and RE2.Sets of the rest of the forms an all-ASCII view can match. */
interface WordPath {
  matcher: WordMatcher;
  /** Per position: the form's own RE2 where its word reading is partial, else null. */
  verify: Array<RE2 | null>;
  /** How many forms the matcher reads as words. */
  wordForms: number;
  rest: SetLayout;
}

interface TargetRules {
  rules: RuleSpec[];
  need: Int32Array;
  patterns: PatternRef[];
  /** Prefilter sets over every form, for views the word path does not take. */
  full: SetLayout;
  /** Null when the word prefilter is off (or no form is a word form). */
  words: WordPath | null;
  /** Prefilter form of the pattern at each position. */
  forms: string[];
  /** Prefilter position q stands for patterns [firstPattern[q], firstPattern[q + 1]): one
   * position per distinct prefilter form, however many patterns share it. */
  firstPattern: Int32Array;
  /** Positions no set could hold: candidates for every text. */
  always: number[];
  /** Number of distinct exact patterns (PatternRef.exact < exactCount). */
  exactCount: number;
  /** Vectorscan id (index into CompiledRules' list of distinct forms) -> position here, or -1. */
  vsPosition: Int32Array;
  /** Positions whose form vectorscan refused, with an RE2 of the form to test them instead
   * (filled in once the database is ready). */
  vsFallback: Array<{ q: number; re: RE2 }>;
  /** The same for the all-ASCII database. */
  vsAsciiFallback: Array<{ q: number; re: RE2 }>;
}

/** One prefilter set: patterns at positions [start, end), then the triage patterns if `triage`. */
interface SetGroup {
  set: RE2Set;
  start: number;
  end: number;
  triage: boolean;
  /** Skip it on all-ASCII views (its patterns need a non-ASCII character). */
  nonAsciiOnly: boolean;
  /** Sampled calls in the current window, and how many of them ran over the cliff threshold
   * (see CompiledRules.checkCliff). The first WARM_WINDOWS windows after a set is built only
   * warm its DFA up and are not judged. */
  windows: number;
  calls: number;
  slow: number;
  /** Cost per byte (ns) of each sampled call in the current window, and the last judged
   * window's mean without its TRIM_SLOWEST slowest calls (NaN before one), which sibling sets
   * compare themselves against: a few calls stretched by the OS descheduling the thread do not
   * make a set look slow, while a cliff (most calls several times slower, some 50x) does. */
  samples: Float64Array;
  cost: number;
}

export interface CompiledRulesOptions {
  /** false: run every prefilter set on every view (tests compare both). */
  skipNonAsciiSets?: boolean;
  /** A set whose sampled calls mostly cost more than this (ns per byte, on real traffic) is
   * split in two. Healthy warm sets cost 2-5, cold ones (DFA still being built: the first few
   * thousand texts) up to ~40; over the cliff, 150-500. Default 100. */
  cliffNsPerByte?: number;
  /** A set is also split when a judged window costs more than this many times the median of its
   * sibling sets' last windows (and over relativeFloorNsPerByte): a set 10x its siblings has
   * fallen off the cliff even at 40-60 ns per byte, where the absolute threshold does not see
   * it. Default 4 (on the development set, a set that had fallen off the cliff cost 6x its
   * siblings by this measure, 10x by its total time; healthy sets differ by at most ~1.3x). */
  relativeCliff?: number;
  /** Below this cost per byte a set is never split for being slower than its siblings: warm
   * healthy sets cost 2-5 ns per byte, and a cheap set beside very cheap ones is no cliff.
   * Default 12. */
  relativeFloorNsPerByte?: number;
  /** Most patterns per prefilter set (default prefilter.ts SET_SIZE). */
  maxSetSize?: number;
  /** 'words': the word-level prefilter in C (native/text) for all-ASCII views, with RE2.Sets
   * for the forms it cannot read as words and for other views; 'vectorscan': the vectorscan
   * prefilter once its database is ready, where the addon is built (the RE2.Sets meanwhile
   * and elsewhere); 're2': the RE2.Sets only. Default: the WARDEN_PREFILTER environment
   * variable, else 're2': on the shipped rules neither other path is faster yet (the word path
   * is even with the RE2.Sets inside the engine and ~8 % slower alone, vectorscan ~0.7x;
   * docs/scanning.md). 'words' where native/text is not built falls back to 're2'. */
  prefilter?: 'words' | 'vectorscan' | 're2';
}

/** Which prefilter a CompiledRules uses right now. */
export type PrefilterKind = 'words' | 'vectorscan' | 're2-set';

function defaultPrefilter(): 'words' | 'vectorscan' | 're2' {
  const env = process.env.WARDEN_PREFILTER;
  return env === 'vectorscan' || env === 'words' ? env : 're2';
}

/** Every SAMPLE_EVERY-th text of at least SAMPLE_MIN_BYTES (below, the fixed cost of a call
 * dominates) is timed set by set; a set is judged every WINDOW_CALLS samples, and split when
 * most of them were slow: one sample stretched by the OS descheduling the thread does not
 * count for more than one. */
const SAMPLE_EVERY = 4;
const SAMPLE_MIN_BYTES = 256;
const WINDOW_CALLS = 128;
const TRIM_SLOWEST = 4;
const WARM_WINDOWS = 2;

export class CompiledRules implements RuleMatcher {
  readonly version: string;
  readonly ruleCount: number;
  private readonly byTarget = new Map<Target, TargetRules>();
  /** The last original text triaged, so match() does not pass over it a second time.
   * `matched` is the text the sets saw (punctuation folded), `bytes` its UTF-8. */
  private cache: { text: string; target: Target; indices: number[]; matched: string; bytes: Buffer } | null = null;
  private warnedFallback = false;
  /** The last frozen input matched and its hits: several plugins (rules, obfuscation) ask
   * about the same input, and the engine freezes it, so the answer cannot have changed. */
  private lastMatch: { input: NormalisedInput; hits: RuleHit[] } | null = null;

  /** Prefilter sets split at run time because they fell off the DFA cliff (see checkCliff). */
  prefilterSplits = 0;
  private readonly cliffNsPerByte: number;
  private readonly relativeCliff: number;
  private readonly relativeFloor: number;
  private sampleTick = 0;
  private readonly prefilterOption: 'words' | 'vectorscan' | 're2';

  constructor(readonly ruleSet: RuleSet, options: CompiledRulesOptions = {}) {
    const skipNonAscii = options.skipNonAsciiSets ?? true;
    this.cliffNsPerByte = options.cliffNsPerByte ?? 100;
    this.relativeCliff = options.relativeCliff ?? 4;
    this.relativeFloor = options.relativeFloorNsPerByte ?? 12;
    this.prefilterOption = options.prefilter ?? defaultPrefilter();
    if (this.prefilterOption === 'words' && nativeText() === null) this.prefilterOption = 're2';
    this.version = ruleSet.version;
    const enabled = ruleSet.rules.filter((r) => r.enabled !== false);
    this.ruleCount = enabled.length;
    for (const target of TARGETS) {
      const rules = enabled.filter((r) => r.targets.includes(target));
      const patterns: PatternRef[] = [];
      const sources: string[] = [];
      const nonAscii: boolean[] = [];
      const exactBySource = new Map<string, Pick<PatternRef, 'spans' | 'exact' | 'stats'>>();
      rules.forEach((rule, ri) => {
        for (const p of rule.patterns) {
          let exact = exactBySource.get(p);
          if (exact === undefined) {
            exact = { spans: spanRegex(p), exact: exactBySource.size, stats: { tries: 0, hits: 0 } };
            exactBySource.set(p, exact);
          }
          patterns.push({ rule: ri, ...exact });
          const form = prefilterForm(p);
          sources.push(form);
          // The form is a superset of the pattern: either one needing non-ASCII is enough.
          nonAscii.push(needsNonAscii(p) || needsNonAscii(form));
        }
      });
      const { sets, bases, members, always, triageSet, triageOffset, nonAsciiOnly } = buildPrefilterSets(sources, options.maxSetSize, nonAscii);
      const groups: SetGroup[] = sets.map((set, k) => {
        const triage = k === triageSet;
        const start = bases[k]!;
        return newGroup(set, start, start + (triage ? triageOffset : set.size), triage, skipNonAscii && nonAsciiOnly[k]!);
      });
      const forms = members.map((m) => sources[m[0]!]!);
      // Sets index positions; order the patterns the same way, those sharing a position together.
      const ordered: PatternRef[] = [];
      const firstPattern = new Int32Array(members.length + 1);
      members.forEach((m, q) => {
        firstPattern[q] = ordered.length;
        for (const i of m) ordered.push(patterns[i]!);
      });
      firstPattern[members.length] = ordered.length;
      patterns.length = 0;
      patterns.push(...ordered);
      this.byTarget.set(target, {
        vsPosition: new Int32Array(0),
        vsFallback: [],
        vsAsciiFallback: [],
        rules,
        need: Int32Array.from(rules.map((r) => requiredMatches(r))),
        patterns,
        full: { groups, positionOf: null, forms },
        // A position all-ASCII views cannot meet: every pattern it stands for needs non-ASCII
        // (the same judgement that lets them skip a set).
        words: this.prefilterOption === 'words' ? wordPath(forms, members.map((m) => m.every((i) => nonAscii[i])), new Set(always), options.maxSetSize) : null,
        forms,
        firstPattern,
        always,
        exactCount: exactBySource.size,
      });
    }
    if (this.prefilterOption === 'vectorscan') this.startVectorscan();
  }

  /** The vectorscan database of every target's prefilter forms (UTF-8), and one of the forms
   * that can match all-ASCII text, compiled for bytes (used on all-ASCII views). */
  private vs: VectorscanDatabase | null = null;
  private vsAscii: VectorscanDatabase | null = null;
  /** Id in vsAscii -> id in vs (index into the list of distinct forms). */
  private vsAsciiIds = new Int32Array(0);
  private vsUsable = false;
  private vsAsciiUsable = false;
  /** The addon, for the normaliser's triage in C (vectorscan path only). */
  private native: ReturnType<typeof vectorscanAddon> = null;

  /** Opens (or starts building) the vectorscan databases; the RE2.Sets serve until they are ready. */
  private startVectorscan(): void {
    const forms: string[] = [];
    const idOf = new Map<string, number>();
    for (const t of this.byTarget.values()) {
      const alwaysSet = new Set(t.always);
      t.forms.forEach((f, q) => {
        if (!alwaysSet.has(q) && !idOf.has(f)) {
          idOf.set(f, forms.length);
          forms.push(f);
        }
      });
    }
    const db = vectorscanDatabase(forms);
    if (db === null) return;
    this.native = vectorscanAddon();
    this.vs = db;
    // The forms that can match all-ASCII text, for a database all-ASCII views use; those
    // written in plain ASCII (no other character, no \x, \p escapes) are compiled for bytes,
    // the same thing on ASCII text and cheaper; the rest as in the UTF-8 database.
    const asciiIds: number[] = [];
    forms.forEach((f, id) => {
      if (!needsNonAscii(f)) asciiIds.push(id);
    });
    this.vsAsciiIds = Int32Array.from(asciiIds);
    const ascii = vectorscanDatabase(
      asciiIds.map((id) => forms[id]!),
      asciiIds.map((id) => !/[^\x00-\x7f]|\\[xpP]/.test(forms[id]!)),
    );
    this.vsAscii = ascii;
    for (const t of this.byTarget.values()) {
      t.vsPosition = new Int32Array(forms.length).fill(-1);
      const alwaysSet = new Set(t.always);
      t.forms.forEach((f, q) => {
        if (!alwaysSet.has(q)) t.vsPosition[idOf.get(f)!] = q;
      });
    }
    /** RE2s of the forms (by id) a database refused, for the positions of each target. */
    const fallbacks = (ids: Iterable<number>): Map<Target, Array<{ q: number; re: RE2 }>> => {
      const out = new Map<Target, Array<{ q: number; re: RE2 }>>();
      for (const [target, t] of this.byTarget) {
        const list: Array<{ q: number; re: RE2 }> = [];
        for (const id of ids) {
          const q = t.vsPosition[id]!;
          if (q >= 0) list.push({ q, re: new RE2(t.forms[q]!, 'iu') });
        }
        out.set(target, list);
      }
      return out;
    };
    void db.ready.then(() => {
      if (db.state !== 'ready') return;
      const fb = fallbacks(db.rejected);
      for (const [target, t] of this.byTarget) t.vsFallback = fb.get(target)!;
      this.vsUsable = true;
    });
    void ascii?.ready.then(() => {
      if (ascii.state !== 'ready') return;
      const fb = fallbacks(ascii.rejected.map((k) => asciiIds[k]!));
      for (const [target, t] of this.byTarget) t.vsAsciiFallback = fb.get(target)!;
      this.vsAsciiUsable = true;
    });
  }

  /** The prefilter in use now. */
  get prefilterKind(): PrefilterKind {
    if (this.vsUsable) return 'vectorscan';
    for (const t of this.byTarget.values()) if (t.words !== null) return 'words';
    return 're2-set';
  }

  /** Resolves once the vectorscan database is ready (or known unavailable), with the
   * prefilter then in use and, for vectorscan, how many forms it refused (matched by RE2). */
  async prefilterReady(): Promise<{ kind: PrefilterKind; rejectedForms: number; reason: string | null }> {
    if (this.vs !== null) await this.vs.ready;
    if (this.vsAscii !== null) await this.vsAscii.ready;
    // Let the ready handlers above run first.
    await Promise.resolve();
    return {
      kind: this.prefilterKind,
      rejectedForms: this.vs?.rejected.length ?? 0,
      reason:
        this.vs !== null
          ? this.vs.error
          : this.prefilterOption === 'vectorscan'
            ? vectorscanUnavailableReason()
            : this.prefilterOption === 're2'
              ? 'RE2.Set prefilter (the default; WARDEN_PREFILTER=words or vectorscan selects another)'
              : nativeText() === null
                ? `word prefilter unavailable: ${nativeTextUnavailableReason()}`
                : null,
    };
  }

  /** Triage and rule prefilter over the original text, sharing one UTF-8 conversion; the
   * prefilter result is kept for match(). Pass as normalise()'s `triage`. */
  triage(text: string, target: Target): Triage {
    const t = this.byTarget.get(target)!;
    // Typographic quotes, dashes and spaces are folded one-for-one in the original view, so
    // "you’re" meets a pattern written "you're" without a normalised view (see PUNCT_FOLD).
    const matched = foldPunctuation(text);
    const bytes = toUtf8(matched);
    const triage: number[] = [];
    const indices = this.runSets(t, matched, bytes, triage);
    this.cache = { text, target, indices, matched, bytes };
    // Triage sees the folded text too: non-ASCII that is only such punctuation needs no view.
    const found = triage.length === 0 ? NOTHING : triageFromMatches(triage, 0);
    // The bytes are the original's own when nothing was folded: normalise() takes `ascii` and
    // the UTF-8 from here instead of passing over the text again.
    if (matched !== text) return found;
    return { ...found, ascii: bytes.length === text.length, utf8: bytes };
  }

  /** Rule patterns per prefilter set of `target` (triage patterns not counted), in run order;
   * `asciiSkipped` marks the sets all-ASCII views skip. For benchmarks and operators. */
  prefilterLayout(target: Target): { patterns: number[]; asciiSkipped: boolean[] } {
    const groups = this.byTarget.get(target)?.full.groups ?? [];
    return { patterns: groups.map((g) => g.end - g.start), asciiSkipped: groups.map((g) => g.nonAsciiOnly) };
  }

  /** How the word prefilter splits `target`'s forms (null when it is off): forms it reads as
   * words, and forms all-ASCII views still pass to RE2.Sets. For benchmarks and operators. */
  wordLayout(target: Target): { wordForms: number; setForms: number; sets: number; matcher: 'native' | 'typescript' } | null {
    const w = this.byTarget.get(target)?.words ?? null;
    if (w === null) return null;
    return { wordForms: w.wordForms, setForms: w.rest.forms.length, sets: w.rest.groups.length, matcher: w.matcher.kind };
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
      let bytes: Buffer;
      let text: string; // what the sets and spans see; same length as view.text
      const c = this.cache;
      if (v === 0 && c !== null && c.text === view.text && c.target === input.target) {
        indices = c.indices;
        bytes = c.bytes;
        text = c.matched;
      } else {
        text = v === 0 ? foldPunctuation(view.text) : view.text;
        bytes = toUtf8(text);
        indices = this.runSets(t, text, bytes);
      }
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

  /** Candidate pattern indices for `text`; triage pattern indices go to `triage` if given. */
  private runSets(t: TargetRules, text: string, bytes: Buffer, triage?: number[]): number[] {
    if (text.length === 0) return [];
    if (this.vsUsable) return this.runVectorscan(t, text, bytes, triage);
    const out: number[] = [];
    const ascii = bytes.length === text.length;
    // All-ASCII views: the word forms by the word matcher, the rest by their own sets.
    const layout = ascii && t.words !== null ? t.words.rest : t.full;
    if (layout !== t.full) {
      const { matcher, verify } = t.words!;
      const found = matcher.match(text, bytes);
      for (let k = 0; k < found.length; k++) {
        const q = found[k]!;
        if (verify[q]?.test(bytes) ?? true) pushPatternsAt(t.firstPattern, q, out);
      }
    }
    const positionOf = layout.positionOf;
    try {
      const sample = bytes.length >= SAMPLE_MIN_BYTES && ++this.sampleTick % SAMPLE_EVERY === 0;
      for (const g of layout.groups) {
        if (ascii && g.nonAsciiOnly) continue;
        const t0 = sample ? performance.now() : 0;
        const found = g.set.match(bytes);
        if (sample) {
          const nsPerByte = ((performance.now() - t0) * 1e6) / bytes.length;
          if (nsPerByte > this.cliffNsPerByte) g.slow++;
          if (g.calls < WINDOW_CALLS) g.samples[g.calls] = nsPerByte;
          g.calls++;
        }
        const size = g.end - g.start;
        for (const i of found) {
          if (i >= size) triage?.push(i - size);
          else pushPatternsAt(t.firstPattern, positionOf === null ? g.start + i : positionOf[g.start + i]!, out);
        }
      }
      if (sample) this.checkCliff(layout);
    } catch (err) {
      // The set's DFA ran out of memory on a pathological input: fall back to one pattern at
      // a time (slower, same answer) rather than miss a threat.
      if (!this.warnedFallback) {
        this.warnedFallback = true;
        log.warn({ err: (err as Error).message }, 'RE2.Set match failed; matching patterns one by one');
      }
      out.length = 0;
      if (triage) triage.length = 0;
      t.patterns.forEach((p, i) => {
        p.spans.lastIndex = 0;
        if (p.spans.test(bytes)) out.push(i);
        p.spans.lastIndex = 0;
      });
      if (triage) TRIAGE_PATTERNS.forEach((p, k) => {
        if (new RE2(p, 'iu').test(bytes)) triage.push(k);
      });
      return out;
    }
    for (const q of t.always) pushPatternsAt(t.firstPattern, q, out);
    return out;
  }
  /** runSets on vectorscan: one pass of the database for the view's kind of text (all-ASCII
   * or not), and the normaliser's triage as a byte loop in C (the RE2 triage set on the rare
   * text it is not sure about). */
  private runVectorscan(t: TargetRules, text: string, bytes: Buffer, triage?: number[]): number[] {
    const out: number[] = [];
    if (bytes.length === text.length && this.vsAsciiUsable) {
      const ids = this.vsAscii!.scan(bytes);
      const map = this.vsAsciiIds;
      for (let k = 0; k < ids.length; k++) {
        const q = t.vsPosition[map[ids[k]!]!]!;
        if (q >= 0) pushPatternsAt(t.firstPattern, q, out);
      }
      for (const f of t.vsAsciiFallback) if (f.re.test(bytes)) pushPatternsAt(t.firstPattern, f.q, out);
    } else {
      const ids = this.vs!.scan(bytes);
      for (let k = 0; k < ids.length; k++) {
        const q = t.vsPosition[ids[k]!]!;
        if (q >= 0) pushPatternsAt(t.firstPattern, q, out);
      }
      for (const f of t.vsFallback) if (f.re.test(bytes)) pushPatternsAt(t.firstPattern, f.q, out);
    }
    for (const q of t.always) pushPatternsAt(t.firstPattern, q, out);
    if (triage !== undefined) {
      const mask = this.native!.triage(bytes);
      if (mask & this.native!.TRIAGE_UNSURE) {
        for (const k of (triageSet ??= new RE2.Set(TRIAGE_PATTERNS as string[], 'iu')).match(bytes)) triage.push(k);
      } else {
        for (let k = 0; mask >> k !== 0; k++) if (mask & (1 << k)) triage.push(k);
      }
    }
    return out;
  }

  /**
   * An RE2.Set's DFA has a cliff (prefilter.ts): past some mix of patterns its states multiply,
   * its cache thrashes and it runs 20-500x slower. Where the cliff is depends on the rule
   * content and on the traffic, so sets are sized for speed and watched on real traffic: a set
   * whose sampled calls mostly cost more per byte than the threshold, or whose window costs
   * relativeCliff times the median of its siblings', is split in two (same patterns, so the
   * same answers), and the halves are watched in turn.
   */
  private checkCliff(t: SetLayout): void {
    for (let k = 0; k < t.groups.length; k++) {
      const g = t.groups[k]!;
      if (g.calls < WINDOW_CALLS) continue;
      const slowShare = g.slow / g.calls;
      const cost = trimmedMean(g.samples, TRIM_SLOWEST);
      g.calls = 0;
      g.slow = 0;
      if (++g.windows <= WARM_WINDOWS) continue;
      g.cost = cost;
      if (g.end - g.start < 2) continue;
      // Sets that only run on non-ASCII views see other texts: compare like with like.
      const siblings = t.groups.filter((o) => o !== g && o.nonAsciiOnly === g.nonAsciiOnly && !Number.isNaN(o.cost)).map((o) => o.cost);
      const siblingMedian = siblings.length > 0 ? median(siblings) : NaN;
      const relative = siblings.length >= 2 && cost > this.relativeFloor && cost > this.relativeCliff * siblingMedian;
      if (slowShare <= 0.5 && !relative) continue;
      const mid = g.start + ((g.end - g.start) >> 1);
      const half = (start: number, end: number, triage: boolean): SetGroup =>
        newGroup(new RE2.Set([...t.forms.slice(start, end), ...(triage ? TRIAGE_PATTERNS : [])], 'iu'), start, end, triage, g.nonAsciiOnly);
      try {
        t.groups.splice(k, 1, half(g.start, mid, false), half(mid, g.end, g.triage));
        this.prefilterSplits++;
        log.info(
          { patterns: g.end - g.start, slowShare, nsPerByte: Math.round(cost * 10) / 10, siblingMedianNsPerByte: siblings.length > 0 ? Math.round(siblingMedian * 10) / 10 : null, thresholdNsPerByte: this.cliffNsPerByte, sets: t.groups.length },
          'prefilter set too slow on this traffic (RE2 DFA cliff): split in two',
        );
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'could not split a slow prefilter set');
      }
      return; // one split per check: the groups array changed
    }
  }
}

const REST_SET_SIZE = 16;

/**
 * The word path of one target: every form that can match all-ASCII text is read as words
 * (word-forms.ts) where it can; the others, with the triage patterns, go into RE2.Sets of
 * their own. `nonAscii[q]`: position q cannot match all-ASCII text. Null when no form is a
 * word form.
 */
function wordPath(forms: string[], nonAscii: readonly boolean[], always: ReadonlySet<number>, maxSetSize: number | undefined): WordPath | null {
  const skip = forms.map((_, q) => always.has(q) || nonAscii[q]!);
  const readings = cachedWordForms(forms, skip);
  const wordForms = readings.map((r) => r?.sequences ?? null);
  if (!wordForms.some((w) => w !== null)) return null;
  const rest = forms.flatMap((_, q) => (wordForms[q] === null && !skip[q] ? [q] : []));
  // A partial reading names looser candidates: each is tested with its form (one RE2 test, a
  // DFA pass) before the exact pattern runs, which costs about twice as much and finds spans.
  const verify = readings.map((r, q) => (r?.partial === true ? new RE2(forms[q]!, 'iu') : null));
  const sources = rest.map((q) => forms[q]!);
  // These are the forms that are not words: heads of markup and punctuation, long gaps. Sets
  // of ~28 of them measured over the DFA cliff (20-40x slower) where sets of 16 were not.
  const built = buildPrefilterSets(sources, Math.min(maxSetSize ?? REST_SET_SIZE, REST_SET_SIZE));
  const groups = built.sets.map((set, k) => {
    const triage = k === built.triageSet;
    const start = built.bases[k]!;
    return newGroup(set, start, start + (triage ? built.triageOffset : set.size), triage, false);
  });
  // Layout index -> position: buildPrefilterSets orders the sources its own way. A form it
  // could not fit in any set is tried on every text (as in the full layout).
  const positionOf = Int32Array.from(built.order, (i) => rest[i]!);
  // Every form here compiled in a set of the full layout (those that did not are in `always`),
  // so each fits a set here too: a set of one at worst.
  if (built.always.length > 0) throw new Error('word path: a prefilter form that fits no set');
  return {
    matcher: wordMatcher(buildWordTables(wordForms)),
    verify,
    wordForms: wordForms.filter((w) => w !== null).length,
    rest: { groups, positionOf, forms: built.order.map((i) => sources[i]!) },
  };
}

/** The triage patterns alone, as the prefilter sets hold them ('iu'), for text the C triage
 * is not sure about. */
let triageSet: RE2Set | undefined;

/** Appends the patterns prefilter position q stands for (TargetRules.firstPattern). */
function pushPatternsAt(firstPattern: Int32Array, q: number, out: number[]): void {
  for (let p = firstPattern[q]!, end = firstPattern[q + 1]!; p < end; p++) out.push(p);
}

/** A prefilter set with a fresh watch window (see checkCliff). */
function newGroup(set: RE2Set, start: number, end: number, triage: boolean, nonAsciiOnly: boolean): SetGroup {
  return { set, start, end, triage, nonAsciiOnly, windows: 0, calls: 0, slow: 0, samples: new Float64Array(WINDOW_CALLS), cost: NaN };
}

/** Mean of `xs` without its `drop` largest values. */
function trimmedMean(xs: Float64Array, drop: number): number {
  const s = Float64Array.from(xs).sort();
  let sum = 0;
  for (let i = 0; i < s.length - drop; i++) sum += s[i]!;
  return sum / (s.length - drop);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
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
