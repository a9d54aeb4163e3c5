import { hash } from 'node:crypto';
import type { WardenConfig } from '../config/types.js';
import type { EventSink, ExtraFinding, ScanThreat } from '../ports.js';
import { log } from '../log.js';
import { applyRules, type AppliedPolicy, type RedactSpan } from '../policies/apply.js';
import { PlaceholderVault, redactSpans } from '../policies/placeholders.js';
import { policyBookCache } from '../policies/resolve.js';
import type { CompiledPolicy } from '../policies/types.js';
import type { PolicyResult } from '../scanning/policy.js';
import type { EngineThreat } from '../scanning/engine.js';
import type { DetectionResult, ScanPool, ScanRequest } from '../scanning/pool.js';
import type { ActionTaken, Span, Target, Verdict } from '../scanning/types.js';
import { StorageWriteError } from '../storage/errors.js';
import { afterResponse } from '../util/after.js';
import { newId } from '../util/ids.js';
import type { ScanRecordMetrics } from './metrics.js';
import type { ScanRecord, ScanStore } from './record.js';
import { MASKED_ATTACK_TYPES, maskText, type MaskSpan } from './mask.js';

/** Who asked, for the record and the event. */
export interface ScanCaller {
  requestId: string;
  caller: string | null;
  provider?: string;
  model?: string;
  metadata?: Record<string, unknown>;
  /** The policy the credential names (API key or JWT claim), if any (docs/policies.md). */
  policy?: string | null;
  /** The route asked (`/v1/rag/scan`, ...), for policy_routing.routes. */
  route?: string;
}

/** The spans of one part of a subject the policy redacted. */
export interface PartRedactions {
  part: number;
  spans: RedactSpan[];
}

/**
 * A text to scan as part of a subject. `locate` (set for chat messages, by the field map) maps a
 * span of `text` to the message and field it came from, with offsets inside that field.
 */
export interface ScanPart {
  text: string;
  target: Target;
  locate?: (span: Span) => { message?: number; field: string; span: Span } | null;
}

/** One text, or an OpenAI-style message list, to scan as one record. */
export type ScanSubject = { text: string; target: Target } | { messages: ScanPart[]; findings?: ExtraFinding[] };

export interface ScanOptions {
  /** Store the record: always (default), never, or only when something was found (stream windows). */
  record?: boolean | 'if_threats';
  /** Overrides action_taken of non-monitor threats (RAG sanitising). */
  action?: ActionTaken;
  /**
   * When the call waits for the record to be stored: always (default: /v1/scan answers with the
   * scan_id, which a client may read back at once), or only for a record with threats (the chat
   * proxy: its errors and threat_detected events name those scans; a clean record, and the
   * listeners' counting of it, run after the answer is written (src/util/after.ts), which on
   * Redis takes a round trip off each of its two scans and their work off the request's path).
   */
  awaitRecord?: 'always' | 'if_threats';
  /** Findings made outside the detectors (the field map's undecodable payloads), added to the first part's. */
  findings?: ExtraFinding[];
  /**
   * The chat proxy's output scans: whether a value is one the caller supplied in its own turns.
   * A blocking pii_exposure threat whose every span is such a value is flagged, not blocked (an
   * IBAN the system prompt gave for a payment tool call is not a leak); the record says so.
   */
  supplied?: (value: string) => boolean;
}

/**
 * The one path every scan takes after the HTTP layer: worker pool → policy → record → events.
 * /v1/scan, /v1/scan/batch, /v1/rag/scan and the chat proxy all go through here, so records,
 * metrics and threat_detected events are the same whoever asked.
 */
export class ScanService {
  private readonly listeners: ((record: ScanRecord) => void)[] = [];

  /** Called with every scan that is recorded (not a clean intermediate stream window), e.g. to keep analytics aggregates. */
  onScan(listener: (record: ScanRecord) => void): void {
    this.listeners.push(listener);
  }

  constructor(
    private readonly deps: {
      pool: Pick<ScanPool, 'scan' | 'scanBatch'>;
      store: ScanStore;
      events: EventSink;
      metrics: ScanRecordMetrics;
      config: () => WardenConfig;
      instanceId: string;
    },
  ) {}

  /** Scans and records one subject; `action` overrides action_taken (RAG sanitising). */
  async scan(subject: ScanSubject, who: ScanCaller, opts: ScanOptions = {}): Promise<ScanRecord> {
    const parts = 'text' in subject ? [subject] : subject.messages;
    const started = performance.now();
    const policy = this.policyOf(who);
    // One scan() per message rather than a batch: the pool sends scans queued in the same turn
    // to the workers together anyway, and a short message (a chat turn) is scanned on the
    // calling thread without a hop (docs/scanning.md, "Small scans").
    const outcomes =
      parts.length === 1
        ? [await this.deps.pool.scan(scanRequest(parts[0]!, policy))]
        : await Promise.all(parts.map((p) => this.deps.pool.scan(scanRequest(p, policy))));
    const findings = [...(opts.findings ?? []), ...('messages' in subject ? (subject.findings ?? []) : [])];
    if (findings.length) outcomes[0] = withFindings(outcomes[0]!, findings);
    return this.finish(parts, outcomes, who, performance.now() - started, opts, policy);
  }

  /**
   * Records findings a check outside the engine made (the chat proxy's outcome guards, which
   * need the whole conversation): same policy, record and threat_detected events as a scan of
   * `text`, stored before it returns (a block's error names the scan).
   */
  async recordFindings(text: string, target: Target, findings: EngineThreat[], who: ScanCaller): Promise<ScanRecord> {
    const riskScore = findings.reduce((m, f) => Math.max(m, f.confidence), 0);
    return this.finish([{ text, target }], [{ threats: findings, riskScore, failures: [], timings: {}, latencyMs: 0, rulesVersion: '' }], who, 0, { record: true, awaitRecord: 'always' });
  }

  /** Many subjects at once, spread over the pool in one go; order kept. */
  async scanMany(subjects: ScanSubject[], who: ScanCaller): Promise<ScanRecord[]> {
    const flat: { text: string; target: Target }[] = [];
    const owners: number[] = [];
    subjects.forEach((s, i) => {
      for (const part of 'text' in s ? [s] : s.messages) {
        flat.push(part);
        owners.push(i);
      }
    });
    const started = performance.now();
    const policy = this.policyOf(who);
    const outcomes = await this.outcomesOf(flat, policy);
    const elapsed = performance.now() - started;
    // Each subject's outcomes, in one pass (owners is in subject order): a filter per subject
    // made a batch of n items cost n² steps.
    const bySubject: (typeof outcomes)[] = subjects.map(() => []);
    outcomes.forEach((o, j) => bySubject[owners[j]!]!.push(o));
    return Promise.all(
      subjects.map((s, i) => {
        const mine = bySubject[i]!;
        if (!('text' in s) && s.findings?.length) mine[0] = withFindings(mine[0]!, s.findings);
        return this.finish('text' in s ? [s] : s.messages, mine, who, elapsed, {}, policy);
      }),
    );
  }

  /** Which texts the policy would flag (or block), scanned as one batch: no record, no event,
   * no metric. RAG sanitising uses it to find the sentences that carry an injection. */
  async flaggedOnly(texts: string[], target: Target, who: Pick<ScanCaller, 'policy' | 'model' | 'route'> = {}): Promise<boolean[]> {
    if (texts.length === 0) return [];
    const policy = this.policyOf(who);
    const outcomes = await this.outcomesOf(texts.map((text) => ({ text, target })), policy);
    return outcomes.map((o) => applyRules(o, policy.targets[target]).verdict !== 'allow');
  }

  /** The policy a caller gets (docs/policies.md, "Which policy a request gets"). */
  private policyOf(who: Pick<ScanCaller, 'policy' | 'model' | 'route'>): CompiledPolicy {
    return this.policies(this.deps.config()).choose({ credential: who.policy, model: who.model, route: who.route }).policy;
  }

  private async outcomesOf(parts: { text: string; target: Target }[], policy: CompiledPolicy): Promise<DetectionResult[]> {
    const results = await this.deps.pool.scanBatch(parts.map((p) => scanRequest(p, policy)));
    return results.map((r) => {
      if ('error' in r) throw new RangeError(r.error.message);
      return r;
    });
  }

  /** The policies of the current configuration, resolved once per configuration (src/policies/). */
  private readonly policies = policyBookCache();
  /** What each record's policy redacted (offsets only), for the caller that scanned it; never stored. */
  private readonly redactions = new WeakMap<ScanRecord, PartRedactions[]>();

  /** The spans the record's policy redacted, per part of the subject (none: empty). */
  redactionsOf(record: ScanRecord): PartRedactions[] {
    return this.redactions.get(record) ?? [];
  }

  /** The text of a one-text subject with the redacted spans replaced by placeholders, or null when nothing was redacted. */
  redactedText(record: ScanRecord, text: string): string | null {
    const parts = this.redactionsOf(record);
    return parts.length === 0 ? null : redactSpans(text, parts[0]!.spans, new PlaceholderVault());
  }

  private async finish(
    parts: ScanPart[],
    outcomes: DetectionResult[],
    who: ScanCaller,
    elapsedMs: number,
    opts: ScanOptions = {},
    policy = this.policyOf(who),
  ): Promise<ScanRecord> {
    const config = this.deps.config();
    // Plain loops rather than map/flatMap/spread chains: this runs twice per proxied request.
    const results: AppliedPolicy[] = new Array(outcomes.length);
    let redacted: PartRedactions[] | null = null;
    let verdict: Verdict = 'allow';
    let riskScore = 0;
    let error: PolicyResult['error'] = null;
    let threatCount = 0;
    for (let i = 0; i < outcomes.length; i++) {
      const r = (results[i] = applyRules(outcomes[i]!, policy.targets[parts[i]!.target]));
      if (r.redact.length > 0) (redacted ??= []).push({ part: i, spans: r.redact });
      if (RANK[r.verdict] > RANK[verdict]) verdict = r.verdict;
      if (r.risk_score > riskScore) riskScore = r.risk_score;
      if (error === null && r.error) error = r.error;
      threatCount += r.threats.length;
    }
    const threats: ScanThreat[] = [];
    if (threatCount > 0) {
      for (let i = 0; i < results.length; i++) {
        for (const t of results[i]!.threats) {
          const threat: ScanThreat = { ...t, ...(opts.action && t.action_taken !== 'logged' ? { action_taken: opts.action } : {}), ...(parts.length > 1 ? { message_index: i } : {}) };
          threats.push(parts[i]!.locate ? located(threat, parts[i]!.locate!) : threat);
        }
      }
    }
    const text = parts.length === 1 ? parts[0]!.text : parts.map((p) => p.text).join('\n');
    if (opts.supplied && parts.length === 1 && verdict === 'block') verdict = suppliedPii(threats, text, opts.supplied, error);
    const { store_input: storeInput, excerpt_chars: excerptChars } = config.storage;
    // What is stored never holds a secret or PII value a detector found (masked, src/scan-service/mask.ts)
    // nor a value the policy redacted (its placeholder instead).
    const kept = storeInput === 'none' || threatCount === 0 ? text : storedText(parts, results, redacted, text);
    const record: ScanRecord = {
      scan_id: newId('scn'),
      created_at: new Date().toISOString(),
      verdict,
      flagged: verdict !== 'allow',
      risk_score: riskScore,
      threats,
      latency_ms: Math.round(elapsedMs * 1000) / 1000,
      error,
      source: parts[0]!.target,
      input_sha256: hash('sha256', text, 'hex'),
      input_length: text.length,
      input: storeInput === 'none' ? null : storeInput === 'full' ? kept : kept.slice(0, excerptChars),
      input_truncated: storeInput === 'excerpt' && kept.length > excerptChars,
      caller: who.caller,
      request_id: who.requestId,
      instance_id: this.deps.instanceId,
      rules_version: outcomes[0]?.rulesVersion ?? '',
      policy: policy.name,
      policy_version: policy.version,
    };
    if (redacted !== null) this.redactions.set(record, redacted);
    // Same keys in the same order as spreading them in (provider, model, metadata last).
    if (who.provider) record.provider = who.provider;
    if (who.model) record.model = who.model;
    if (who.metadata) record.metadata = who.metadata;
    this.deps.metrics.scans.inc({ source: record.source, verdict });
    this.deps.metrics.policyScans?.inc({ policy: policy.name, policy_version: policy.version, verdict });
    for (const t of threats) {
      this.deps.metrics.threats.inc({ attack_type: t.attack_type, severity: t.severity, action: t.action_taken });
      this.deps.events.emit(
        'threat_detected',
        {
          threat_id: t.threat_id,
          severity: t.severity,
          attack_type: t.attack_type,
          confidence: t.confidence,
          action_taken: t.action_taken,
          scan_id: record.scan_id,
          source: record.source,
          detector: t.detector,
          rule_id: t.rule_id,
          request_id: who.requestId,
          caller: who.caller,
          policy: policy.name,
          policy_version: policy.version,
          ...(t.evidence ? { evidence: t.evidence } : {}),
        },
        t.threat_id,
      );
    }
    const recorded = opts.record === undefined || opts.record === true || (opts.record === 'if_threats' && threats.length > 0);
    if (recorded) {
      if (opts.awaitRecord === 'if_threats' && threats.length === 0) {
        // Nobody reads this record back before the answer is out: store it (and count it) after.
        afterResponse(() => {
          this.notify(record);
          this.deps.store.put(record).catch((err: unknown) => recordFailed(err, record));
        });
      } else {
        this.notify(record);
        try {
          await this.deps.store.put(record);
        } catch (err) {
          recordFailed(err, record);
          // A store that promises durability (SQLite) and could not keep it: the caller must not
          // be told the scan was recorded (HTTP answers 503). Other stores' failures are logged.
          if (err instanceof StorageWriteError) throw err;
        }
      }
    }
    return record;
  }

  private notify(record: ScanRecord): void {
    for (const listener of this.listeners) {
      try {
        listener(record);
      } catch (err) {
        log.warn({ err: (err as Error).message }, 'scan listener failed');
      }
    }
  }
}

function recordFailed(err: unknown, record: ScanRecord): void {
  log.error({ err: (err as Error).message, scan_id: record.scan_id }, 'scan record could not be stored');
}

/** What the pool is asked for one part: only the detectors the policy runs on its target. */
function scanRequest(part: { text: string; target: Target }, policy: CompiledPolicy): ScanRequest {
  const detectors = policy.targets[part.target].detectorList;
  return detectors === null ? { text: part.text, target: part.target } : { text: part.text, target: part.target, detectors };
}

/** A detection result with findings made outside the detectors added (detector `field-map`, no span). */
function withFindings(r: DetectionResult, findings: ExtraFinding[]): DetectionResult {
  return { ...r, threats: [...r.threats, ...findings.map((f) => ({ ...f, confidence: 1, detector: 'field-map', spans: [] }))] };
}

/**
 * The subject's text as stored (parts joined as in finish()): the spans of secret and PII findings
 * masked at the same length first, so the policy's redaction spans still point at the same
 * characters, then the redacted spans replaced by their placeholders.
 */
function storedText(parts: ScanPart[], results: Pick<PolicyResult, 'threats'>[], redacted: PartRedactions[] | null, text: string): string {
  let changed = redacted !== null;
  const texts = parts.map((p, i) => {
    const spans: MaskSpan[] = [];
    for (const t of results[i]!.threats) if (MASKED_ATTACK_TYPES.has(t.attack_type)) for (const s of t.spans) spans.push({ ...s, ruleId: t.rule_id });
    if (spans.length) changed = true;
    return spans.length ? maskText(p.text, spans) : p.text;
  });
  if (!changed) return text;
  if (redacted !== null) {
    const vault = new PlaceholderVault();
    for (const r of redacted) texts[r.part] = redactSpans(texts[r.part]!, r.spans, vault);
  }
  return texts.length === 1 ? texts[0]! : texts.join('\n');
}

const RANK: Record<Verdict, number> = { allow: 0, flag: 1, block: 2 };

/** Blocking PII threats on values the caller supplied become flagged; the verdict that is left. */
function suppliedPii(threats: ScanThreat[], text: string, supplied: (value: string) => boolean, error: PolicyResult['error']): Verdict {
  for (const t of threats) {
    if (t.attack_type !== 'pii_exposure' || t.action_taken !== 'blocked' || !t.spans.length) continue;
    if (!t.spans.every((s) => supplied(text.slice(s.start, s.end)))) continue;
    t.action_taken = 'flagged';
    t.message += ' (a value the caller supplied in its own turns: not blocked)';
  }
  if (threats.some((t) => t.action_taken === 'blocked') || (error && error.fail_mode === 'closed')) return 'block';
  return 'flag';
}

/** A threat's spans moved from a part's text to the message and field they start in. */
function located(t: ScanThreat, locate: NonNullable<ScanPart['locate']>): ScanThreat {
  const { message_index: _part, ...rest } = t;
  const first = t.spans[0] ? locate(t.spans[0]) : null;
  if (!first) return rest;
  const spans = t.spans.map((s) => locate(s)).filter((l) => l !== null && l.field === first.field).map((l) => l!.span);
  return { ...rest, ...(first.message !== undefined ? { message_index: first.message } : {}), field: first.field, spans };
}
