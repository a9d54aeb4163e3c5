import type { ScanRecord } from './record.js';

/** The API view of a record: the result fields decisions.md names (/v1/scan, /v1/scan/batch, scan job results). */
export function resultOf(r: ScanRecord): Record<string, unknown> {
  return {
    scan_id: r.scan_id,
    verdict: r.verdict,
    flagged: r.flagged,
    risk_score: r.risk_score,
    threats: r.threats,
    latency_ms: r.latency_ms,
    created_at: r.created_at,
    source: r.source,
    ...(r.error ? { error: { code: r.error.code, message: r.error.message, fail_mode: r.error.fail_mode } } : {}),
    ...(r.policy !== undefined ? { policy: r.policy, policy_version: r.policy_version } : {}),
  };
}
