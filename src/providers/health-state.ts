/**
 * The provider health state machine, pure so every instance (and every test) computes the same
 * transition from the same record. Hysteresis: one failure only degrades a healthy provider,
 * `unhealthy_after` consecutive failures make it unhealthy, and it takes `recover_after`
 * consecutive good observations to climb back; one slow check alone changes nothing.
 */

export type HealthStatus = 'healthy' | 'degraded' | 'unhealthy';
export type RecordedStatus = HealthStatus | 'unknown';

export interface HealthRecord {
  provider: string;
  status: RecordedStatus;
  latency_ms: number | null;
  last_check: string | null;
  last_error: string | null;
  models: string[];
  fail_streak: number;
  ok_streak: number;
  slow_streak: number;
  /** Bumped on every write; the compare-and-set token. */
  version: number;
  changed_at: string | null;
}

export interface Observation {
  kind: 'ok' | 'slow' | 'fail';
  source: 'probe' | 'traffic';
  at: string;
  latency_ms?: number;
  error?: string;
  models?: string[];
}

export interface HealthThresholds {
  unhealthy_after: number;
  recover_after: number;
}

export const DEFAULT_THRESHOLDS: HealthThresholds = { unhealthy_after: 3, recover_after: 2 };

export function initialRecord(provider: string): HealthRecord {
  return {
    provider,
    status: 'unknown',
    latency_ms: null,
    last_check: null,
    last_error: null,
    models: [],
    fail_streak: 0,
    ok_streak: 0,
    slow_streak: 0,
    version: 0,
    changed_at: null,
  };
}

export interface Transition {
  next: HealthRecord;
  changed: boolean;
  reason: string;
}

export function applyObservation(rec: HealthRecord, obs: Observation, th: HealthThresholds = DEFAULT_THRESHOLDS): Transition {
  const next: HealthRecord = { ...rec, version: rec.version + 1 };
  if (obs.source === 'probe') {
    next.last_check = obs.at;
    if (obs.models) next.models = obs.models;
  }
  if (obs.latency_ms !== undefined) next.latency_ms = obs.latency_ms;
  let status: RecordedStatus = rec.status;
  let reason = '';
  const via = obs.source === 'probe' ? 'health checks' : 'requests';
  switch (obs.kind) {
    case 'fail':
      next.fail_streak = rec.fail_streak + 1;
      next.ok_streak = 0;
      next.slow_streak = 0;
      next.last_error = obs.error ?? 'unknown error';
      if (next.fail_streak >= th.unhealthy_after) {
        status = 'unhealthy';
        reason = `${next.fail_streak} consecutive failed ${via}: ${next.last_error}`;
      } else if (rec.status === 'healthy' || rec.status === 'unknown') {
        status = 'degraded';
        reason = `failed ${via === 'requests' ? 'request' : 'health check'}: ${next.last_error}`;
      }
      break;
    case 'slow':
      next.slow_streak = rec.slow_streak + 1;
      next.fail_streak = 0;
      next.ok_streak = 0;
      if (rec.status === 'unknown' || next.slow_streak >= th.recover_after) {
        status = 'degraded';
        reason = `slow ${via}: ${obs.latency_ms ?? '?'} ms`;
      }
      break;
    case 'ok':
      next.ok_streak = rec.ok_streak + 1;
      next.fail_streak = 0;
      next.slow_streak = 0;
      if (rec.status === 'unknown' || next.ok_streak >= th.recover_after) {
        status = 'healthy';
        reason = rec.status === 'unknown' ? `first successful ${via === 'requests' ? 'request' : 'health check'}` : `${next.ok_streak} consecutive successful ${via}`;
      }
      break;
  }
  const changed = status !== rec.status;
  next.status = status;
  if (changed) next.changed_at = obs.at;
  return { next, changed, reason: changed ? reason : '' };
}
