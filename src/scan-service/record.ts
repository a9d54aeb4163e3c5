import type { ScanThreat } from '../ports.js';
import type { ScanErrorMarker } from '../scanning/policy.js';
import type { Target, Verdict } from '../scanning/types.js';

/** What /v1/scan returns and /v1/scans stores (decisions.md, Scanning). */
export interface ScanRecord {
  scan_id: string;
  created_at: string;
  verdict: Verdict;
  flagged: boolean;
  risk_score: number;
  threats: ScanThreat[];
  latency_ms: number;
  /** Non-null when a detector failed and the verdict followed security.fail_mode. */
  error: ScanErrorMarker | null;
  source: Target;
  input_sha256: string;
  input_length: number;
  /** Per storage.store_input: the first characters (excerpt), everything (full), or null (none). */
  input: string | null;
  input_truncated: boolean;
  /** API key id or `user:<subject>`. */
  caller: string | null;
  request_id: string;
  instance_id: string;
  rules_version: string;
  /** The policy that decided the verdict (docs/policies.md) and its version (a hash of its rules). */
  policy?: string;
  policy_version?: string;
  provider?: string;
  model?: string;
  metadata?: Record<string, unknown>;
}

export interface ScanFilter {
  verdict?: Verdict;
  attack_type?: string;
  severity?: string;
  source?: Target;
  /** ISO date-times, inclusive. */
  since?: string;
  until?: string;
  /** Only this caller's records (a `service` key reads only its own). */
  caller?: string;
}

export interface ScanPage {
  data: ScanRecord[];
  next_cursor: string | null;
}

/** Memory (one instance) or Redis (shared); both bounded by storage.max_scans and retention_days. */
export interface ScanStore {
  readonly backend: 'memory' | 'sqlite' | 'redis';
  put(record: ScanRecord): Promise<void>;
  get(scanId: string): Promise<ScanRecord | null>;
  /** Newest first. `cursor` is what the previous page returned. */
  list(filter: ScanFilter, limit: number, cursor?: string): Promise<ScanPage>;
}

/** The fields of a record a filter reads without its threats. */
export type ScanRecordFields = Pick<ScanRecord, 'verdict' | 'source' | 'caller' | 'created_at'>;

export interface CompiledScanFilter {
  /** verdict, source, caller and time. */
  fields(r: ScanRecordFields): boolean;
  /** attack_type and severity (a record without threats passes only when neither is set). */
  threats(r: Pick<ScanRecord, 'threats'>): boolean;
  /** Whether threats() can refuse anything. */
  readonly needsThreats: boolean;
}

/**
 * A filter ready for many records: the date bounds converted once, and split so a store can
 * test the plain fields before it reads a record's threats. A record matches when it passes both.
 */
export function compileFilter(f: ScanFilter): CompiledScanFilter {
  const since = f.since ? new Date(f.since).toISOString() : null;
  const until = f.until ? new Date(f.until).toISOString() : null;
  return {
    fields: (r) =>
      !(f.verdict && r.verdict !== f.verdict) &&
      !(f.source && r.source !== f.source) &&
      !(f.caller && r.caller !== f.caller) &&
      !(since !== null && r.created_at < since) &&
      !(until !== null && r.created_at > until),
    threats: (r) =>
      !(f.attack_type && !r.threats.some((t) => t.attack_type === f.attack_type)) &&
      !(f.severity && !r.threats.some((t) => t.severity === f.severity)),
    needsThreats: Boolean(f.attack_type || f.severity),
  };
}

/** Cursors are opaque to clients: the last scan id seen, base64url-encoded. */
export function encodeCursor(scanId: string): string {
  return Buffer.from(scanId).toString('base64url');
}

export function decodeCursor(cursor: string): string | null {
  const id = Buffer.from(cursor, 'base64url').toString();
  return /^scn_[0-9a-z]{26}$/.test(id) ? id : null;
}
