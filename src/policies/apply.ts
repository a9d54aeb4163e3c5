import type { PolicyAction } from '../config/types.js';
import type { EngineThreat } from '../scanning/engine.js';
import type { PolicyInput, PolicyResult, ScanErrorMarker, Threat } from '../scanning/policy.js';
import { SEVERITY_RANK, type ActionTaken, type Span, type Verdict } from '../scanning/types.js';
import { newId } from '../util/ids.js';
import { placeholderKind } from './placeholders.js';
import type { TargetRules } from './types.js';

/** A span of the scanned text the policy says to replace, and the placeholder type it gets. */
export interface RedactSpan extends Span {
  kind: string;
}

export interface AppliedPolicy extends PolicyResult {
  /** Spans to replace (action `redact`), sorted, not overlapping; empty when there are none. */
  redact: RedactSpan[];
}

/** The action for a finding: by rule id, then detector, then attack type; block when none is named. */
export function actionFor(t: Pick<EngineThreat, 'ruleId' | 'detector' | 'attackType'>, rules: TargetRules): PolicyAction {
  return rules.actions[t.ruleId] ?? rules.actions[t.detector] ?? rules.actions[t.attackType] ?? 'block';
}

/** Whether a finding or failure of `detector` (reported by `plugin`) counts under the target's `detectors`. */
function detectorCounts(rules: Pick<TargetRules, 'detectors'>, detector: string | null, plugin?: string): boolean {
  return rules.detectors === null || (detector !== null && rules.detectors.has(detector)) || (plugin !== undefined && rules.detectors.has(plugin));
}

/**
 * One target's rules over what the workers found (the policy of docs/policies.md):
 *  - findings of detectors the policy does not run (the workers ran only those: ScanService;
 *    findings made outside them are checked here), or under their threshold, are dropped;
 *  - `allow` drops the finding; `flag` flags it; `block` blocks at or above block_severity and
 *    flags below; `redact` marks it `sanitized` (the verdict is flag: the text goes on, its
 *    spans replaced); in monitor mode every kept finding is `logged`;
 *  - a failure of a detector the policy runs follows its fail_mode (as scanning/policy.ts).
 */
export function applyRules(outcome: PolicyInput, rules: TargetRules): AppliedPolicy {
  const monitor = rules.mode === 'monitor';
  const blockRank = SEVERITY_RANK[rules.block_severity];
  let verdict: Verdict = 'allow';
  const threats: Threat[] = [];
  let redact: RedactSpan[] = [];
  for (const t of outcome.threats) {
    if (!detectorCounts(rules, t.detector, t.plugin)) continue;
    const threshold = rules.thresholds[t.detector];
    if (threshold !== undefined && t.confidence < threshold) continue;
    const action = actionFor(t, rules);
    if (action === 'allow') continue;
    let taken: ActionTaken;
    if (monitor) taken = 'logged';
    else if (action === 'redact' && t.spans.length > 0) taken = 'sanitized';
    else if (action === 'block' && SEVERITY_RANK[t.severity] >= blockRank) taken = 'blocked';
    else taken = 'flagged';
    if (taken === 'blocked') verdict = 'block';
    else if (verdict === 'allow') verdict = 'flag';
    if (taken === 'sanitized') {
      const kind = placeholderKind(t.ruleId, t.attackType);
      for (const s of t.spans) redact.push({ start: s.start, end: s.end, kind });
    }
    threats.push({
      threat_id: newId('thr'),
      attack_type: t.attackType,
      severity: t.severity,
      confidence: t.confidence,
      action_taken: taken,
      detector: t.detector,
      rule_id: t.ruleId,
      // A redacted finding's message never quotes the value (a secret's message shows part of it).
      message: taken === 'sanitized' ? `${t.ruleId}: ${t.spans.length} span${t.spans.length > 1 ? 's' : ''} redacted` : t.message,
      spans: t.spans,
      ...(t.evidence ? { evidence: t.evidence } : {}),
    });
  }
  if (redact.length > 1) redact = disjoint(redact);
  const failures = rules.detectors === null ? outcome.failures : outcome.failures.filter((f) => !f.detector || detectorCounts(rules, f.detector));
  let error: ScanErrorMarker | null = null;
  if (failures.length > 0) {
    const first = failures[0]!;
    error = {
      code: first.kind === 'timeout' ? 'scan_timeout' : first.kind,
      message: failures.map((f) => (f.detector ? `${f.detector}: ${f.message}` : f.message)).join('; '),
      fail_mode: rules.fail_mode,
      failures,
    };
    if (rules.fail_mode === 'closed') verdict = monitor ? (verdict === 'allow' ? 'flag' : verdict) : 'block';
  }
  const risk = threats.length === outcome.threats.length ? outcome.riskScore : threats.reduce((m, t) => Math.max(m, t.confidence), 0);
  return { verdict, flagged: verdict !== 'allow', risk_score: risk, threats, error, redact };
}

/** Sorted by start; of two overlapping spans the earlier (then longer) one is kept, widened over the other. */
function disjoint(spans: RedactSpan[]): RedactSpan[] {
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: RedactSpan[] = [spans[0]!];
  for (let i = 1; i < spans.length; i++) {
    const last = out[out.length - 1]!;
    const s = spans[i]!;
    if (s.start < last.end) last.end = Math.max(last.end, s.end);
    else out.push({ ...s });
  }
  return out;
}
