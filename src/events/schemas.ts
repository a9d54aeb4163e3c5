/**
 * JSON Schemas (draft 2020-12 subset that ajv 8 accepts by default) of what goes on the wire:
 * the WebSocket messages of /ws/events and the values of the Kafka topics are the same envelope.
 * docs/events.md documents them; SIEM pipelines can validate against them.
 */
import { EVENT_TYPES } from './types.js';

const id = (prefix: string) => ({ type: 'string', pattern: `^${prefix}_[0-9a-z]{26}$` });
const nullableString = { type: ['string', 'null'] };
const common = {
  event_id: id('evt'),
  instance_id: { type: 'string', minLength: 1 },
};

export const threatDetectedData = {
  type: 'object',
  required: ['threat_id', 'severity', 'attack_type', 'confidence', 'action_taken', 'event_id', 'instance_id'],
  properties: {
    ...common,
    threat_id: id('thr'),
    severity: { enum: ['low', 'medium', 'high', 'critical'] },
    attack_type: { type: 'string', minLength: 1 },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    action_taken: { enum: ['blocked', 'flagged', 'sanitized', 'logged'] },
    scan_id: id('scn'),
    source: nullableString,
    detector: nullableString,
    rule_id: nullableString,
    request_id: nullableString,
    caller: nullableString,
    policy: { type: 'string' },
    policy_version: { type: 'string' },
  },
} as const;

export const providerHealthChangeData = {
  type: 'object',
  required: ['provider', 'status', 'event_id', 'instance_id'],
  properties: {
    ...common,
    provider: { type: 'string', minLength: 1 },
    previous_status: { enum: ['healthy', 'degraded', 'unhealthy', 'unknown', null] },
    status: { enum: ['healthy', 'degraded', 'unhealthy'] },
    reason: nullableString,
    latency_ms: { type: ['number', 'null'], minimum: 0 },
  },
} as const;

export const costThresholdAlertData = {
  type: 'object',
  required: ['scope', 'period', 'threshold_usd', 'spent_usd', 'event_id', 'instance_id'],
  properties: {
    ...common,
    scope: { enum: ['global', 'key', 'provider'] },
    scope_id: nullableString,
    period: { enum: ['day', 'month'] },
    threshold_usd: { type: 'number', minimum: 0 },
    spent_usd: { type: 'number', minimum: 0 },
    percent: { type: 'number', minimum: 0 },
  },
} as const;

export const systemStatusData = {
  type: 'object',
  required: ['status', 'version', 'detail', 'event_id', 'instance_id'],
  properties: {
    ...common,
    status: { enum: ['starting', 'ready', 'config_reloaded', 'degraded', 'shutting_down'] },
    version: { type: 'string', minLength: 1 },
    detail: { type: 'string' },
  },
} as const;

const count = { type: 'integer', minimum: 0 };
export const scanJobProgressData = {
  type: 'object',
  required: ['job_id', 'state', 'total', 'scanned', 'flagged', 'blocked', 'errors', 'event_id', 'instance_id'],
  properties: {
    ...common,
    job_id: id('job'),
    state: { enum: ['queued', 'running', 'done', 'failed', 'cancelled'] },
    total: { type: ['integer', 'null'], minimum: 0 },
    scanned: count,
    flagged: count,
    blocked: count,
    errors: count,
    docs_per_second: { type: ['number', 'null'], minimum: 0 },
    eta_seconds: { type: ['number', 'null'], minimum: 0 },
  },
} as const;

export const EVENT_DATA_SCHEMAS = {
  threat_detected: threatDetectedData,
  provider_health_change: providerHealthChangeData,
  cost_threshold_alert: costThresholdAlertData,
  system_status: systemStatusData,
  scan_job_progress: scanJobProgressData,
} as const;

/** The envelope: exactly type, timestamp and data; data checked by type. */
export const eventEnvelopeSchema = {
  $id: 'https://warden.dev/schemas/event.json',
  type: 'object',
  additionalProperties: false,
  required: ['type', 'timestamp', 'data'],
  properties: {
    type: { enum: [...EVENT_TYPES] },
    timestamp: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$' },
    data: { type: 'object' },
  },
  allOf: EVENT_TYPES.map((type) => ({
    if: { properties: { type: { const: type } } },
    then: { properties: { data: EVENT_DATA_SCHEMAS[type] } },
  })),
} as const;
