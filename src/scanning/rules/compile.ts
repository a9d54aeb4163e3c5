/**
 * The compiled rule set (a RuleMatcher). Per target, every pattern of every rule goes into one
 * RE2.Set, so one pass over a view says which patterns match anywhere, whatever the number of
 * rules. Only the rules whose condition that satisfies run their own RE2 to find spans. The
 * normaliser's triage patterns ride along at the end of the same set, so for the original text
 * one pass answers both "which rules may hit" and "which extra views are needed".
 */
import RE2 from 're2';
import { log } from '../../log.js';
import { TRIAGE_PATTERNS, toUtf8, triageFromMatches, type Triage } from '../normalise/triage.js';
import type { NormalisedInput, RuleHit, RuleMatcher, Span, Target } from '../types.js';
import { TARGETS } from '../types.js';
import type { RuleSet } from './load.js';
import { requiredMatches, type RuleSpec } from './schema.js';

const MAX_SPANS_PER_PATTERN = 8;

interface PatternRef {
  rule: number; // index into TargetRules.rules
  re: RE2;
}

interface TargetRules {
  rules: RuleSpec[];
  need: Int32Array;
  /** Pattern indices of each rule within `patterns`. */
  patternsOf: number[][];
  patterns: PatternRef[];
  set: InstanceType<typeof RE2.Set>;
  /** Index of the first triage pattern in `set`. */
  triageBase: number;
}

type RE2Set = InstanceType<typeof RE2.Set>;

export class CompiledRules implements RuleMatcher {
  readonly version: string;
  readonly ruleCount: number;
  private readonly byTarget = new Map<Target, TargetRules>();
  /** The last original text triaged, so match() does not pass over it a second time. */
  private cache: { text: string; target: Target; indices: number[] } | null = null;
  private warnedFallback = false;

  constructor(readonly ruleSet: RuleSet) {
    this.version = ruleSet.version;
    const enabled = ruleSet.rules.filter((r) => r.enabled !== false);
    this.ruleCount = enabled.length;
    for (const target of TARGETS) {
      const rules = enabled.filter((r) => r.targets.includes(target));
      const patterns: PatternRef[] = [];
      const patternsOf: number[][] = [];
      const sources: string[] = [];
      rules.forEach((rule, ri) => {
        const mine: number[] = [];
        for (const p of rule.patterns) {
          mine.push(patterns.length);
          patterns.push({ rule: ri, re: new RE2(p, 'giu') });
          sources.push(p);
        }
        patternsOf.push(mine);
      });
      const triageBase = sources.length;
      const set = new RE2.Set([...sources, ...TRIAGE_PATTERNS], 'iu');
      this.byTarget.set(target, {
        rules,
        need: Int32Array.from(rules.map((r) => requiredMatches(r))),
        patternsOf,
        patterns,
        set,
        triageBase,
      });
    }
  }

  /** Rules and triage in one pass over the original text; pass as normalise()'s `triage`. */
  triage(text: string, target: Target): Triage {
    const t = this.byTarget.get(target)!;
    const indices = this.runSet(t.set, text, t);
    this.cache = { text, target, indices };
    return triageFromMatches(indices, t.triageBase);
  }

  match(input: NormalisedInput): RuleHit[] {
    const t = this.byTarget.get(input.target);
    if (t === undefined || t.rules.length === 0) return [];
    const hits: RuleHit[] = [];
    const hitRules = new Set<number>();
    const counts = new Int32Array(t.rules.length);
    for (let v = 0; v < input.views.length; v++) {
      const view = input.views[v]!;
      let indices: number[];
      const c = this.cache;
      if (v === 0 && c !== null && c.text === view.text && c.target === input.target) indices = c.indices;
      else indices = this.runSet(t.set, view.text, t);
      if (indices.length === 0) continue;
      counts.fill(0);
      const matchedPatterns: number[] = [];
      for (const i of indices) {
        if (i >= t.triageBase) continue;
        counts[t.patterns[i]!.rule]!++;
        matchedPatterns.push(i);
      }
      for (let r = 0; r < t.rules.length; r++) {
        if (counts[r]! < t.need[r]! || hitRules.has(r)) continue;
        hitRules.add(r);
        const rule = t.rules[r]!;
        const spans: Span[] = [];
        for (const pi of matchedPatterns) {
          if (t.patterns[pi]!.rule !== r) continue;
          collectSpans(t.patterns[pi]!.re, view.text, (s, e) => spans.push(view.toOriginal(s, e)));
        }
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

  private runSet(set: RE2Set, text: string, t: TargetRules): number[] {
    if (text.length === 0) return [];
    try {
      return set.match(toUtf8(text));
    } catch (err) {
      // The set's DFA ran out of memory on a pathological input: fall back to one pattern at
      // a time (slower, same answer) rather than miss a threat.
      if (!this.warnedFallback) {
        this.warnedFallback = true;
        log.warn({ err: (err as Error).message }, 'RE2.Set match failed; matching patterns one by one');
      }
      const out: number[] = [];
      t.patterns.forEach((p, i) => {
        p.re.lastIndex = 0;
        if (p.re.test(text)) out.push(i);
      });
      return out;
    }
  }
}

function collectSpans(re: RE2, text: string, push: (start: number, end: number) => void): void {
  re.lastIndex = 0;
  for (let n = 0; n < MAX_SPANS_PER_PATTERN; n++) {
    const m = re.exec(text);
    if (m === null) break;
    const start = m.index;
    const end = start + m[0].length;
    push(start, end);
    if (end === start) re.lastIndex = end + 1; // never loop on an empty match
  }
  re.lastIndex = 0;
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
