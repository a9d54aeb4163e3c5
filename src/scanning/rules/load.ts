/**
 * Loads rule files: YAML (with source positions) -> ajv schema -> RE2 compile check -> ids
 * unique across every file. Every problem becomes a RuleIssue naming file, line, rule and
 * pattern; loading collects all of them rather than stopping at the first, so `warden rules
 * lint` shows the whole list at once.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import RE2 from 're2';
import { isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { requiredMatches, ruleSchema, type RuleDefinition, type RuleSpec } from './schema.js';

export type RuleIssueKind = 'io' | 'yaml' | 'schema' | 'unknown_key' | 'bad_value' | 'duplicate_id' | 'bad_pattern' | 'failing_test';

export interface RuleIssue {
  kind: RuleIssueKind;
  path: string;
  line?: number;
  column?: number;
  ruleId?: string;
  pattern?: string;
  message: string;
}

export function formatIssue(i: RuleIssue): string {
  let where = i.path;
  if (i.line !== undefined) where += `:${i.line}`;
  if (i.column !== undefined) where += `:${i.column}`;
  const parts = [where];
  if (i.ruleId !== undefined) parts.push(`rule "${i.ruleId}"`);
  if (i.pattern !== undefined) parts.push(`pattern ${clip(JSON.stringify(i.pattern), 160)}`);
  parts.push(i.message);
  return parts.join(': ');
}

export class RuleLoadError extends Error {
  constructor(readonly issues: RuleIssue[]) {
    super(`${issues.length} problem(s) in rule files:\n` + issues.map((i) => '  ' + formatIssue(i)).join('\n'));
    this.name = 'RuleLoadError';
  }
}

/** A validated, compile-checked rule set: plain data, safe to send to workers. */
export interface RuleSet {
  rules: RuleSpec[];
  files: string[];
  /** Content hash: equal sets have equal versions. */
  version: string;
}

const ajv = new Ajv({ allErrors: true, strict: true });
const validateRule = ajv.compile(ruleSchema);

/** Rule files in a directory (*.yaml, *.yml; sorted), or the one file given. */
export function ruleFiles(path: string): string[] {
  const abs = resolve(path);
  const st = statSync(abs);
  if (st.isFile()) return [abs];
  return readdirSync(abs)
    .filter((n) => (n.endsWith('.yaml') || n.endsWith('.yml')) && !n.startsWith('.'))
    .sort()
    .map((n) => join(abs, n));
}

/**
 * Loads and validates every rule file under `path` (a directory or one file), or under each of
 * several paths (the shipped rules/ and `scanning.rules_paths` beside them): one set, rule ids
 * unique across all of them. Throws RuleLoadError.
 */
export function loadRuleSet(path: string | readonly string[]): RuleSet {
  const files: string[] = [];
  const unreadable: RuleIssue[] = [];
  for (const p of typeof path === 'string' ? [path] : path) {
    try {
      for (const f of ruleFiles(p)) if (!files.includes(f)) files.push(f);
    } catch (err) {
      unreadable.push({ kind: 'io', path: p, message: `cannot read rules: ${(err as Error).message}` });
    }
  }
  if (unreadable.length > 0) throw new RuleLoadError(unreadable);
  const sources = files.map((f) => {
    try {
      return { path: f, text: readFileSync(f, 'utf8') };
    } catch (err) {
      return { path: f, text: null as string | null, error: (err as Error).message };
    }
  });
  return parseRuleSources(sources);
}

export function parseRuleSources(sources: Array<{ path: string; text: string | null; error?: string }>): RuleSet {
  const issues: RuleIssue[] = [];
  const rules: RuleSpec[] = [];
  const seen = new Map<string, RuleSpec>();
  for (const src of sources) {
    if (src.text === null) {
      issues.push({ kind: 'io', path: src.path, message: `cannot read: ${src.error ?? 'unknown error'}` });
      continue;
    }
    for (const rule of parseRuleFile(src.path, src.text, issues)) {
      const prev = seen.get(rule.id);
      if (prev !== undefined) {
        issues.push({
          kind: 'duplicate_id',
          path: rule.path,
          line: rule.line,
          ruleId: rule.id,
          message: `duplicate rule id (first defined at ${prev.path}:${prev.line})`,
        });
        continue;
      }
      seen.set(rule.id, rule);
      rules.push(rule);
    }
  }
  if (issues.length > 0) throw new RuleLoadError(issues);
  const version = createHash('sha256')
    .update(JSON.stringify(rules.map(({ path: _p, line: _l, ...r }) => r)))
    .digest('hex')
    .slice(0, 12);
  return { rules, files: sources.map((s) => s.path), version };
}

function parseRuleFile(path: string, text: string, issues: RuleIssue[]): RuleSpec[] {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number | undefined): { line?: number; column?: number } => {
    if (offset === undefined) return {};
    const p = lc.linePos(offset);
    return { line: p.line, column: p.col };
  };
  if (doc.errors.length > 0) {
    for (const e of doc.errors) issues.push({ kind: 'yaml', path, ...at(e.pos[0]), message: `YAML: ${firstLine(e.message)}` });
    return [];
  }
  const data: unknown = doc.toJS();
  if (data === null || data === undefined) return []; // an empty file holds no rules
  if (!Array.isArray(data)) {
    issues.push({ kind: 'schema', path, ...at(doc.contents?.range?.[0]), message: 'a rule file must be a YAML list of rules' });
    return [];
  }
  const stem = basename(path, extname(path));
  const out: RuleSpec[] = [];
  data.forEach((item: unknown, index: number) => {
    const node = doc.getIn([index], true) as Node | undefined;
    const ruleLine = at(node?.range?.[0]);
    const ruleId = typeof (item as { id?: unknown })?.id === 'string' ? (item as { id: string }).id : undefined;
    const before = issues.length;
    if (!validateRule(item)) {
      let conditionReported = false;
      for (const err of validateRule.errors ?? []) {
        if (err.instancePath.startsWith('/condition')) {
          // oneOf yields one error per branch; one clear line is better.
          if (conditionReported) continue;
          conditionReported = true;
          const node = doc.getIn([index, 'condition'], true) as Node | undefined;
          issues.push({
            kind: 'bad_value',
            path,
            ...(node?.range ? at(node.range[0]) : ruleLine),
            ruleId,
            message: `condition must be "any", "all" or {at_least: N} (got ${JSON.stringify((item as { condition?: unknown }).condition)})`,
          });
          continue;
        }
        issues.push(schemaIssue(path, doc, index, err, ruleId, at, ruleLine));
      }
    }
    // Every pattern goes to RE2 even when the rule has schema errors: lint shows all the problems at once.
    const patterns = (item as { patterns?: unknown })?.patterns;
    if (Array.isArray(patterns)) {
      patterns.forEach((pattern: unknown, p) => {
        if (typeof pattern !== 'string') return;
        const err = re2Error(pattern);
        if (err === null) return;
        const node = doc.getIn([index, 'patterns', p], true) as Node | undefined;
        issues.push({ kind: 'bad_pattern', path, ...at(constructOffset(node, pattern, err)), ruleId, pattern, message: `RE2 cannot compile it: ${clip(err, 200)}${hint(err)}` });
      });
    }
    if (issues.length > before) return;
    const rule = item as RuleDefinition;
    const cond = rule.condition;
    if (typeof cond === 'object' && cond.at_least > rule.patterns.length) {
      const pos = at((doc.getIn([index, 'condition'], true) as Node | undefined)?.range?.[0]);
      issues.push({
        kind: 'bad_value',
        path,
        ...pos,
        ruleId: rule.id,
        message: `condition.at_least is ${cond.at_least} but the rule has only ${rule.patterns.length} pattern(s)`,
      });
    }
    if (issues.length > before) return;
    requiredMatches(rule);
    out.push({ ...rule, file: stem, path, line: ruleLine.line ?? 0 });
  });
  return out;
}

function schemaIssue(
  path: string,
  doc: Document,
  index: number,
  err: ErrorObject,
  ruleId: string | undefined,
  at: (o: number | undefined) => { line?: number; column?: number },
  ruleLine: { line?: number; column?: number },
): RuleIssue {
  const segs = err.instancePath.split('/').slice(1).map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
  const node = doc.getIn([index, ...segs], true) as Node | undefined;
  const field = segs.length > 0 ? segs.join('.') : '(rule)';
  const pattern = segs[0] === 'patterns' && typeof segs[1] === 'number' && isScalar(node) ? String(node.value) : undefined;
  if (err.keyword === 'additionalProperties') {
    const key = String((err.params as { additionalProperty: string }).additionalProperty);
    const map = doc.getIn([index, ...segs], true);
    let pos = ruleLine;
    if (isMap(map)) {
      const pair = map.items.find((it) => isScalar(it.key) && it.key.value === key);
      if (pair && isScalar(pair.key)) pos = at(pair.key.range?.[0]);
    }
    return { kind: 'unknown_key', path, ...pos, ruleId, message: `unknown key "${segs.length ? field + '.' : ''}${key}"` };
  }
  const pos = node?.range ? at(node.range[0]) : ruleLine;
  let message = `${field} ${err.message ?? 'is invalid'}`;
  if (err.keyword === 'enum') message += `: ${(err.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (err.keyword !== 'required' && isScalar(node)) message += ` (got ${clip(JSON.stringify(node.value), 80)})`;
  return { kind: err.keyword === 'required' ? 'schema' : 'bad_value', path, ...pos, ruleId, pattern, message };
}

/** RE2 is the judge of what a pattern may use (the engine compiles with it, flags `iu`): its error, or null. */
function re2Error(pattern: string): string | null {
  try {
    new RE2(pattern, 'iu');
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** RE2 names the construct it refused (`invalid perl operator: (?=`); the position points at it in the file when it can be found. */
function constructOffset(node: Node | undefined, pattern: string, err: string): number | undefined {
  const start = node?.range?.[0];
  if (start === undefined) return undefined;
  const construct = /: (.+)$/.exec(err)?.[1];
  const at = construct ? pattern.indexOf(construct) : -1;
  if (at < 0 || !isScalar(node)) return start;
  // A quoted scalar starts with its quote; plain and single-quoted text has the pattern's characters one for one before `at` (close enough for double quotes too).
  const quoted = node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE' ? 1 : 0;
  return start + quoted + at;
}

/** What to write instead, for the constructs RE2 leaves out by design (linear-time matching). */
function hint(err: string): string {
  if (/\(\?[=!]|\(\?<[=!]/.test(err)) return ' (RE2 has no look-ahead or look-behind: match the text itself, or split the rule into patterns with condition: all)';
  if (/invalid escape sequence: \\[1-9k]/.test(err)) return ' (RE2 has no backreferences)';
  if (/\(\?>|\+\+|\*\+|\?\+/.test(err)) return ' (RE2 has no atomic groups or possessive quantifiers; they are not needed: RE2 never backtracks)';
  return '';
}

/** Long patterns would drown the message: keep the head, say how long the rest was. */
function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length} chars)`;
}

function firstLine(s: string): string {
  return s.split('\n')[0] ?? s;
}
