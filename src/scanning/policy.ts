/**
 * Policy, on the main thread: turns what the workers found into a verdict. Pure and cheap, so
 * `security.mode`, `security.block_severity` and `security.fail_mode` can change at runtime
 * without touching the workers.
 *
 *  - enforce: a threat at or above block_severity is `blocked` and the verdict is block; other
 *    threats are `flagged` (verdict flag).
 *  - monitor: every threat is `logged`; the verdict is flag when anything was found, never block.
 *  - a detector error, time-out or worker crash adds an `error` marker. fail_mode closed turns
 *    the verdict into block (flag in monitor mode); open leaves the verdict to whatever the
 *    working detectors found.
 */
import { newId } from '../util/ids.js';
import type { EngineThreat, ScanFailure } from './engine.js';
import type { ActionTaken, AttackType, Severity, Span, Verdict } from './types.js';
import { SEVERITIES, SEVERITY_RANK } from './types.js';

export type SecurityMode = 'enforce' | 'monitor';
export type FailMode = 'closed' | 'open';

export interface ScanPolicy {
  mode: SecurityMode;
  block_severity: Severity;
  fail_mode: FailMode;
}

export const DEFAULT_POLICY: ScanPolicy = Object.freeze({ mode: 'enforce', block_severity: 'high', fail_mode: 'closed' });

/** The decisions.md threat shape. */
export interface Threat {
  threat_id: string;
  attack_type: AttackType;
  severity: Severity;
  confidence: number;
  action_taken: ActionTaken;
  detector: string;
  rule_id: string;
  message: string;
  spans: Span[];
  /** Set by context-aware checks (the proxy's outcome guards): what they saw. */
  evidence?: Record<string, unknown>;
}

export interface ScanErrorMarker {
  code: 'detector_error' | 'scan_timeout' | 'worker_crash' | 'overloaded';
  message: string;
  fail_mode: FailMode;
  failures: ScanFailure[];
}

export interface PolicyResult {
  verdict: Verdict;
  flagged: boolean;
  risk_score: number;
  threats: Threat[];
  /** Non-null when any detector failed; the verdict then follows fail_mode. */
  error: ScanErrorMarker | null;
}

/** What policy needs from a scan (an EngineResult or a DetectionResult). */
export interface PolicyInput {
  threats: EngineThreat[];
  riskScore: number;
  failures: ScanFailure[];
}

export function applyPolicy(outcome: PolicyInput, policy: ScanPolicy = DEFAULT_POLICY): PolicyResult {
  if (!SEVERITIES.includes(policy.block_severity)) throw new TypeError(`block_severity must be one of ${SEVERITIES.join(', ')}`);
  const monitor = policy.mode === 'monitor';
  let verdict: Verdict = 'allow';
  const threats: Threat[] = outcome.threats.map((t) => {
    let action: ActionTaken;
    if (monitor) action = 'logged';
    else if (SEVERITY_RANK[t.severity] >= SEVERITY_RANK[policy.block_severity]) action = 'blocked';
    else action = 'flagged';
    if (action === 'blocked') verdict = 'block';
    else if (verdict === 'allow') verdict = 'flag';
    return {
      threat_id: newId('thr'),
      attack_type: t.attackType,
      severity: t.severity,
      confidence: t.confidence,
      action_taken: action,
      detector: t.detector,
      rule_id: t.ruleId,
      message: t.message,
      spans: t.spans,
      ...(t.evidence ? { evidence: t.evidence } : {}),
    };
  });
  let error: ScanErrorMarker | null = null;
  if (outcome.failures.length > 0) {
    const first = outcome.failures[0]!;
    const code = first.kind === 'timeout' ? 'scan_timeout' : first.kind;
    error = {
      code,
      message: outcome.failures.map((f) => (f.detector ? `${f.detector}: ${f.message}` : f.message)).join('; '),
      fail_mode: policy.fail_mode,
      failures: outcome.failures,
    };
    if (policy.fail_mode === 'closed') verdict = monitor ? (verdict === 'allow' ? 'flag' : verdict) : 'block';
  }
  return { verdict, flagged: verdict !== 'allow', risk_score: outcome.riskScore, threats, error };
}
