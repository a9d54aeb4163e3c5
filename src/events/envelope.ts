import { EVENT_TYPES, type EventEnvelope, type EventType } from './types.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (EVENT_TYPES as readonly string[]).includes(value);
}

/**
 * The natural id an event is keyed by in Kafka (same key, same partition, so per-entity order
 * holds): the threat, the provider, the cost scope, or the instance for system events.
 */
export function naturalKey(type: EventType, data: Record<string, unknown>, instanceId: string): string {
  const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : undefined);
  switch (type) {
    case 'threat_detected':
      return str(data.threat_id) ?? instanceId;
    case 'provider_health_change':
      return str(data.provider) ?? instanceId;
    case 'cost_threshold_alert': {
      const scope = str(data.scope);
      return scope ? `${scope}:${str(data.scope_id) ?? '*'}` : instanceId;
    }
    case 'system_status':
      return instanceId;
    case 'scan_job_progress':
      return str(data.job_id) ?? instanceId;
  }
}

/**
 * Checks what another instance (or anything else writing to the topics) sent us. Returns the
 * envelope with exactly the three wire fields, or a reason it was refused.
 */
export function parseEnvelope(raw: string | Buffer | null | undefined): EventEnvelope | { invalid: string } {
  if (raw == null) return { invalid: 'empty message' };
  let value: unknown;
  try {
    value = JSON.parse(raw.toString());
  } catch {
    return { invalid: 'not JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { invalid: 'not an object' };
  const v = value as Record<string, unknown>;
  if (!isEventType(v.type)) return { invalid: 'unknown type' };
  if (typeof v.timestamp !== 'string' || !TIMESTAMP.test(v.timestamp)) return { invalid: 'bad timestamp' };
  const data = v.data as Record<string, unknown> | undefined;
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { invalid: 'data is not an object' };
  if (typeof data.event_id !== 'string' || typeof data.instance_id !== 'string') {
    return { invalid: 'data lacks event_id or instance_id' };
  }
  return { type: v.type, timestamp: v.timestamp, data: data as EventEnvelope['data'] };
}
