import { createHash } from 'node:crypto';
import { log } from '../log.js';
import { applyPolicy, type PolicyResult, type ScanPolicy } from '../scanning/policy.js';
import type { ScanPool } from '../scanning/pool.js';
import type { Target } from '../scanning/types.js';
import { newId } from '../util/ids.js';
import type { ChatScanner, EventSink, ScanContext, ScanOutcome } from './ports.js';

/** What the proxy hands the scan store for each chat scan (decisions.md, "A scan record"). */
export interface ChatScanRecord {
  scan_id: string;
  created_at: string;
  source: Target;
  verdict: PolicyResult['verdict'];
  flagged: boolean;
  risk_score: number;
  threats: PolicyResult['threats'];
  error: PolicyResult['error'];
  latency_ms: number;
  input_sha256: string;
  input_length: number;
  /** The text, for the store to cut to `storage.store_input` (excerpt, full, none). */
  input: string;
  caller: string | null;
  request_id: string;
  instance_id: string;
  provider?: string;
  model?: string;
  /** An intermediate window of a streamed output. */
  partial: boolean;
}

export interface PoolScannerDeps {
  pool: Pick<ScanPool, 'scan'>;
  policy: () => ScanPolicy;
  instanceId: string;
  events?: EventSink;
  /** Persists a scan record (the scan store). Intermediate stream windows that found nothing are not recorded. */
  record?: (rec: ChatScanRecord) => void | Promise<void>;
}

/**
 * The chat proxy's scanner on top of the scanning core: worker-pool scan, policy, then the
 * scan record and one threat_detected event per threat, as /v1/scan does for its callers.
 */
export function createPoolScanner(deps: PoolScannerDeps): ChatScanner {
  return {
    async scan(text: string, target: Target, ctx: ScanContext): Promise<ScanOutcome> {
      const outcome = await deps.pool.scan({ text, target });
      const result = applyPolicy(outcome, deps.policy());
      const scanId = newId('scn');
      const partial = ctx.partial === true;
      if (deps.record && !(partial && result.threats.length === 0)) {
        const rec: ChatScanRecord = {
          scan_id: scanId,
          created_at: new Date().toISOString(),
          source: target,
          verdict: result.verdict,
          flagged: result.flagged,
          risk_score: result.risk_score,
          threats: result.threats,
          error: result.error,
          latency_ms: outcome.latencyMs,
          input_sha256: createHash('sha256').update(text).digest('hex'),
          input_length: text.length,
          input: text,
          caller: ctx.caller,
          request_id: ctx.requestId,
          instance_id: deps.instanceId,
          provider: ctx.provider,
          model: ctx.model,
          partial,
        };
        Promise.resolve()
          .then(() => deps.record!(rec))
          .catch((err) => log.warn({ err: (err as Error).message, scan_id: scanId }, 'chat scan record failed'));
      }
      for (const t of result.threats) {
        deps.events?.emit(
          'threat_detected',
          {
            threat_id: t.threat_id,
            severity: t.severity,
            attack_type: t.attack_type,
            confidence: t.confidence,
            action_taken: t.action_taken,
            scan_id: scanId,
            source: target,
            detector: t.detector,
            rule_id: t.rule_id,
            request_id: ctx.requestId,
            caller: ctx.caller,
            ...(ctx.model ? { model: ctx.model } : {}),
          },
          t.threat_id,
        );
      }
      return {
        scan_id: scanId,
        verdict: result.verdict,
        threats: result.threats.map((t) => ({
          threat_id: t.threat_id,
          attack_type: t.attack_type,
          severity: t.severity,
          confidence: t.confidence,
          action_taken: t.action_taken,
          rule_id: t.rule_id,
          detector: t.detector,
          message: t.message,
        })),
      };
    },
  };
}
