/**
 * Event envelope and the transport seam. The bus (src/events/bus.ts) stamps envelopes,
 * delivers them to local listeners at once, and hands them to the transport so other
 * instances see them. A transport delivers back only events raised by OTHER instances,
 * so every listener sees every event exactly once.
 */

export type EventType = 'threat_detected' | 'provider_health_change' | 'cost_threshold_alert' | 'system_status' | 'scan_job_progress';
export const EVENT_TYPES: readonly EventType[] = [
  'threat_detected',
  'provider_health_change',
  'cost_threshold_alert',
  'system_status',
  'scan_job_progress',
];

/** Types a WebSocket client gets only when it names them in a subscription (high-volume or niche). */
export const OPT_IN_EVENT_TYPES: ReadonlySet<EventType> = new Set(['scan_job_progress']);

/** Kafka topic suffix per event type (prefix `kafka.topic_prefix`, default `warden.`). */
export const EVENT_TOPICS: Record<EventType, string> = {
  threat_detected: 'threats',
  provider_health_change: 'provider-health',
  cost_threshold_alert: 'cost-alerts',
  system_status: 'system',
  scan_job_progress: 'scan-job-progress',
};

export interface EventData {
  event_id: string;
  instance_id: string;
  [field: string]: unknown;
}

/** Exactly `{type, timestamp, data}` on the wire (WebSocket and Kafka value). */
export interface EventEnvelope {
  type: EventType;
  /** ISO 8601 UTC with milliseconds and Z. */
  timestamp: string;
  data: EventData;
}

export type EventListener = (event: EventEnvelope) => void;

export interface TransportStatus {
  transport: 'memory' | 'kafka';
  connected: boolean;
  /** Events waiting to be published (Kafka down). */
  buffered: number;
  dropped: number;
}

export interface EventTransport {
  readonly name: 'memory' | 'kafka';
  start(): Promise<void>;
  /** Publish an envelope raised on this instance. `key` is the natural id (threat_id, provider name...). Never throws: buffers when the backend is down. */
  publish(event: EventEnvelope, key: string): void;
  /** Called with events raised by other instances. */
  onRemoteEvent(listener: EventListener): void;
  status(): TransportStatus;
  /** Flushes what can be flushed, then disconnects. */
  stop(): Promise<void>;
}
