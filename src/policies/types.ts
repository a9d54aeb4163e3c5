import type { PolicyAction } from '../config/types.js';
import type { FailMode, SecurityMode } from '../scanning/policy.js';
import type { Severity, Target } from '../scanning/types.js';

/** One target's rules after `extends` and the built-in defaults are applied. */
export interface TargetRules {
  mode: SecurityMode;
  block_severity: Severity;
  fail_mode: FailMode;
  /** Detectors that run and whose findings and failures count; null = all. */
  detectors: ReadonlySet<string> | null;
  /** The same names as a list, as the scan pool takes them (ScanRequest.detectors). */
  detectorList: readonly string[] | null;
  /** Minimum confidence by detector. */
  thresholds: Readonly<Record<string, number>>;
  /** Action by rule id, detector or attack type (looked up in that order); default block. */
  actions: Readonly<Record<string, PolicyAction>>;
}

/** A policy ready to apply: every target's rules, its name and a version (a hash of the rules). */
export interface CompiledPolicy {
  name: string;
  /** 12 hex characters of the SHA-256 of the resolved rules: changes whenever what it decides can. */
  version: string;
  targets: Readonly<Record<Target, TargetRules>>;
}

/** Where a request's policy came from (most specific first). */
export type PolicySource = 'credential' | 'model' | 'route' | 'default';

/** What a request says about which policy it wants. */
export interface PolicyRequest {
  /** The API key's policy or the JWT claim. */
  credential?: string | null;
  model?: string;
  route?: string;
}
