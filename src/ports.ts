import type { EventType } from './events/types.js';
import type { Threat } from './scanning/policy.js';
import type { AttackType, Severity, Target, Verdict } from './scanning/types.js';

/**
 * Ports several folders share (providers, spend, proxy, scans): what they need from the rest of
 * Warden, kept narrow so they can be tested alone and wired to whatever the composition root
 * (src/server.ts) provides. They live above those folders so none reaches into another for them.
 */

/** The event bus as seen from every folder that raises events (scan service, proxy, provider
 * health, spend): `bus.emit(type, data, key)` stamps and publishes. */
export interface EventSink {
  emit(type: EventType, data: Record<string, unknown>, key: string): unknown;
}

export interface ScanContext {
  requestId: string;
  /** API key id or JWT subject. */
  caller: string | null;
  provider?: string;
  model?: string;
  /** `prompt`, `rag`, `output`: also the scan record's `source`. */
  source: Target;
  /** An intermediate window of a streamed output (the final verdict comes with a later call). */
  partial?: boolean;
  /** For a request's texts: maps a span of the scanned text to the message and field it is in
   * (the chat field map's segments), so the scan record's threats name them. */
  locate?: (span: { start: number; end: number }) => { message?: number; field: string; span: { start: number; end: number } } | null;
  /** For output scans of the chat proxy: whether a found value is one the caller itself supplied
   * (in its system, developer or user turns); such PII in the answer is not exposure. */
  supplied?: (value: string) => boolean;
  /** Findings the caller made itself, recorded with the scan's own (a payload that is not text: issue 23). */
  findings?: ExtraFinding[];
  /** The policy the credential names (API key or JWT claim), for docs/policies.md's resolution. */
  policy?: string | null;
  /** The route asked, for policy_routing.routes. */
  route?: string;
}

/** A finding made outside the detectors (by the field map), added to a scan's threats before the policy. */
export interface ExtraFinding {
  attackType: AttackType;
  severity: Severity;
  ruleId: string;
  message: string;
}

/** A value the policy says to redact before the request goes upstream: its placeholder type and
 * the value itself (kept in memory for the request only; never logged, stored or sent). */
export interface Redaction {
  kind: string;
  value: string;
}

/** A threat as stored and returned (/v1/scan, /v1/scans, the chat proxy's errors): the policy's
 * threat, plus which message and field it was found in. */
export interface ScanThreat extends Threat {
  /** For `messages` input: the index of the message the spans refer to. */
  message_index?: number;
  /** For `messages` input: the field the spans are offsets in, e.g. `messages[2].content[0].text`. */
  field?: string;
}

/** What a recorded scan decided, as the proxy acts on it: the record's id, verdict and threats. */
export interface ScanOutcome {
  scan_id: string;
  verdict: Verdict;
  threats: ScanThreat[];
  /** Values to replace by placeholders (action `redact`); absent when there are none. */
  redactions?: Redaction[];
}

/**
 * Scans a text, records the scan and raises threat_detected for each threat (the scan
 * service does the recording and the events; the proxy only acts on the verdict).
 */
export interface ChatScanner {
  scan(text: string, target: Target, ctx: ScanContext): Promise<ScanOutcome>;
  /** Records findings made outside the scanner (the proxy's outcome guards) as a scan of `text`:
   * policy, record, threat_detected. Optional: without it the proxy raises the events itself. */
  record?(findings: ExternalFinding[], text: string, target: Target, ctx: ScanContext): Promise<ScanOutcome>;
}

/** A finding of a check that needs the conversation (src/proxy/outcome/), with what it saw. */
export interface ExternalFinding {
  attack_type: AttackType;
  severity: Severity;
  confidence: number;
  detector: string;
  rule_id: string;
  message: string;
  evidence: Record<string, unknown>;
}
