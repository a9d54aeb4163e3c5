import { Counter, Gauge, type Registry } from 'prom-client';
import type { TransportStatus } from './types.js';

/**
 * Prometheus metrics of the event bus and its transport. Built once per registry (the
 * composition root injects the process registry; tests pass their own).
 */
export interface EventMetrics {
  published: Counter<'type'>;
  delivered: Counter<'type' | 'origin'>;
  consumerLag: Gauge<'topic' | 'partition'>;
  remoteRejected: Counter<'reason'>;
}

export function createEventMetrics(registry: Registry, transportStatus: () => TransportStatus): EventMetrics {
  const registers = [registry];
  new Gauge({
    name: 'warden_events_transport_connected',
    help: 'Whether the event transport reaches its backend (1) or not (0); memory is always 1',
    labelNames: ['transport'],
    registers,
    collect() {
      const s = transportStatus();
      this.reset();
      this.set({ transport: s.transport }, s.connected ? 1 : 0);
    },
  });
  new Gauge({
    name: 'warden_events_buffered',
    help: 'Events raised here and waiting to be published (transport backend unreachable)',
    registers,
    collect() { this.set(transportStatus().buffered); },
  });
  new Gauge({
    name: 'warden_events_buffer_dropped',
    help: 'Events dropped (oldest first) because the publish buffer was full, since start',
    registers,
    collect() { this.set(transportStatus().dropped); },
  });
  return {
    published: new Counter({
      name: 'warden_events_published_total',
      help: 'Events raised on this instance, by type',
      labelNames: ['type'],
      registers,
    }),
    delivered: new Counter({
      name: 'warden_events_delivered_total',
      help: 'Events delivered to local listeners, by type and origin (local: raised here; remote: another instance)',
      labelNames: ['type', 'origin'],
      registers,
    }),
    consumerLag: new Gauge({
      name: 'warden_events_kafka_consumer_lag',
      help: 'Messages behind the high watermark, per topic partition, as of the last fetched batch',
      labelNames: ['topic', 'partition'],
      registers,
    }),
    remoteRejected: new Counter({
      name: 'warden_events_remote_rejected_total',
      help: 'Messages from the transport not delivered: malformed, own echo or duplicate',
      labelNames: ['reason'],
      registers,
    }),
  };
}
