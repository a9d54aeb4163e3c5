/**
 * Offline harness for detector CONTENT: loads rules/*.yaml and plugins/* without the engine,
 * so rule and plugin authors can measure recall and false positives on a labelled JSONL file
 * and run every rule's own tests. The engine (src/scanning) is the production path; this
 * harness only mirrors its contract (RE2, case-insensitive, matched over every view).
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import RE2 from 're2';
import YAML from 'yaml';
import type {
  DetectorPlugin, Finding, NormalisedInput, RuleHit, RuleMatcher, Target, AttackType, Severity,
} from '../../src/scanning/types.js';
import { makeInput } from '../../plugins/testing-input.js';

export interface RawRule {
  id: string;
  title: string;
  attack_type: AttackType;
  severity: Severity;
  confidence: number;
  targets: Target[];
  patterns: string[];
  condition?: unknown;
  tests?: { match?: string[]; no_match?: string[] };
}

interface CompiledRule { raw: RawRule; file: string; res: RE2[]; need: number }

function needed(condition: unknown, n: number): number {
  if (condition === undefined || condition === 'any') return 1;
  if (condition === 'all') return n;
  if (typeof condition === 'number') return condition;
  if (typeof condition === 'string') {
    const m = /^at[ _]least[ _:]*(\d+)$/i.exec(condition.trim());
    if (m) return Number(m[1]);
  }
  if (condition && typeof condition === 'object' && 'at_least' in condition) return Number((condition as { at_least: number }).at_least);
  throw new Error(`unknown condition ${JSON.stringify(condition)}`);
}

export function loadRules(dir: string): CompiledRule[] {
  const out: CompiledRule[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.yaml')).sort()) {
    const list = YAML.parse(readFileSync(join(dir, f), 'utf8')) as RawRule[];
    for (const raw of list) {
      const res = raw.patterns.map((p) => {
        try { return new RE2(p, 'iu'); } catch (e) { throw new Error(`${f}: ${raw.id}: pattern ${p}: ${(e as Error).message}`); }
      });
      out.push({ raw, file: basename(f, '.yaml'), res, need: needed(raw.condition, res.length) });
    }
  }
  return out;
}

export class HarnessMatcher implements RuleMatcher {
  readonly version = 'harness';
  constructor(private readonly rules: CompiledRule[]) {}
  get ruleCount(): number { return this.rules.length; }
  match(input: NormalisedInput): RuleHit[] {
    const hits: RuleHit[] = [];
    for (const r of this.rules) {
      if (!r.raw.targets.includes(input.target)) continue;
      for (const view of input.views) {
        let count = 0;
        const spans = [];
        for (const re of r.res) {
          re.lastIndex = 0;
          const m = re.exec(view.text);
          if (m) { count++; spans.push(view.toOriginal(m.index, m.index + m[0].length)); }
        }
        if (count >= r.need) {
          hits.push({ ruleId: r.raw.id, file: r.file, title: r.raw.title, attackType: r.raw.attack_type, severity: r.raw.severity, confidence: r.raw.confidence, spans, viewKind: view.kind });
          break;
        }
      }
    }
    return hits;
  }
  /** Run each rule's own tests against a prompt-target input (or its first target). */
  selfTest(): string[] {
    const failures: string[] = [];
    for (const r of this.rules) {
      const single = new HarnessMatcher([r]);
      const target = r.raw.targets[0]!;
      for (const t of r.raw.tests?.match ?? []) if (single.match(makeInput(t, { target })).length === 0) failures.push(`${r.raw.id}: should match: ${t}`);
      for (const t of r.raw.tests?.no_match ?? []) if (single.match(makeInput(t, { target })).length > 0) failures.push(`${r.raw.id}: should not match: ${t}`);
    }
    return failures;
  }
}

export async function loadPlugins(distPluginsDir: string): Promise<DetectorPlugin[]> {
  const out: DetectorPlugin[] = [];
  for (const name of readdirSync(distPluginsDir).sort()) {
    const file = join(distPluginsDir, name, 'index.js');
    if (name === 'rules' || !existsSync(file)) continue;
    const mod = (await import(pathToFileURL(file).href)) as { default: DetectorPlugin };
    out.push(mod.default);
  }
  return out;
}

export function scanWith(text: string, target: Target, matcher: HarnessMatcher, plugins: DetectorPlugin[]): Finding[] {
  const input = makeInput(text, { target });
  const findings: Finding[] = matcher.match(input).map((h) => ({ attackType: h.attackType, severity: h.severity, confidence: h.confidence, ruleId: h.ruleId, message: h.title, spans: h.spans }));
  for (const p of plugins) {
    if (!p.meta.targets.includes(target)) continue;
    findings.push(...p.scan(input, { rules: matcher, config: { ...p.meta.defaultConfig } }));
  }
  return findings;
}
