import type { Registry } from 'prom-client';
import { log as rootLog, type Logger } from '../log.js';
import { newId } from '../util/ids.js';
import { isEventType, naturalKey } from './envelope.js';
import { MemoryTransport } from './memory-transport.js';
import { createEventMetrics, type EventMetrics } from './metrics.js';
import type { EventEnvelope, EventListener, EventTransport, EventType, TransportStatus } from './types.js';

export interface EventBusOptions {
  instanceId: string;
  /** Default: MemoryTransport (one instance). */
  transport?: EventTransport;
  /** Metrics go here when given. */
  registry?: Registry;
  logger?: Logger;
  /** How many remote event ids to remember to drop redeliveries (Kafka is at-least-once). */
  dedupeWindow?: number;
}

/**
 * The one place events are raised. emit() stamps the envelope, delivers it to local listeners at
 * once and hands it to the transport; the transport hands back events raised by other instances,
 * which are delivered to local listeners too. Every listener sees every event once: own events
 * coming back from the transport and redelivered remote events are dropped here.
 */
export class EventBus {
  readonly instanceId: string;
  readonly transport: EventTransport;
  private readonly listeners = new Set<EventListener>();
  private readonly metrics: EventMetrics | null;
  private readonly log: Logger;
  private readonly seen = new Set<string>();
  private readonly seenOrder: string[] = [];
  /** Ids raised here, to tell our own echo from another instance configured with our id. */
  private readonly raised = new Set<string>();
  private readonly raisedOrder: string[] = [];
  private lastDuplicateWarning = 0;
  private readonly dedupeWindow: number;
  private started = false;

  constructor(options: EventBusOptions) {
    this.instanceId = options.instanceId;
    this.transport = options.transport ?? new MemoryTransport();
    this.log = (options.logger ?? rootLog).child({ component: 'events' });
    this.dedupeWindow = options.dedupeWindow ?? 50_000;
    this.metrics = options.registry ? createEventMetrics(options.registry, () => this.transport.status()) : null;
    this.transport.onRemoteEvent((event) => this.receiveRemote(event));
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.transport.start();
  }

  /** Flushes what the transport can still publish, then disconnects. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    await this.transport.stop();
  }

  /**
   * Raises an event. `data` holds the type's fields; event_id and instance_id are added (and
   * win over anything the caller passed under those names). `key` defaults to the natural id.
   * Never throws for transport trouble; an unknown type is a programming error and throws.
   */
  emit(type: EventType, data: Record<string, unknown>, key?: string): EventEnvelope {
    if (!isEventType(type)) throw new TypeError(`unknown event type: ${String(type)}`);
    const event: EventEnvelope = {
      type,
      timestamp: new Date().toISOString(),
      data: { ...data, event_id: newId('evt'), instance_id: this.instanceId },
    };
    this.metrics?.published.inc({ type });
    if (this.transport.name !== 'memory') remember(this.raised, this.raisedOrder, event.data.event_id, this.dedupeWindow);
    this.deliver(event, 'local');
    try {
      this.transport.publish(event, key ?? naturalKey(type, data, this.instanceId));
    } catch (err) {
      // The transport contract says publish never throws; if one does, the event still reached local listeners.
      this.log.error({ err, type }, 'event transport failed to accept an event');
    }
    return event;
  }

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  status(): TransportStatus {
    return this.transport.status();
  }

  /** Remote events that reach listeners; also used by the Kafka transport's lag metric. */
  get eventMetrics(): EventMetrics | null {
    return this.metrics;
  }

  private receiveRemote(event: EventEnvelope): void {
    if (event.data.instance_id === this.instanceId) {
      this.metrics?.remoteRejected.inc({ reason: 'own_event' });
      if (!this.raised.has(event.data.event_id) && Date.now() - this.lastDuplicateWarning > 60_000) {
        // Not one of ours, yet it carries our id: two instances share server.instance_id, so
        // they drop each other's events and split one consumer group.
        this.lastDuplicateWarning = Date.now();
        this.log.error({ instance_id: this.instanceId }, 'another instance uses this server.instance_id; give every instance its own');
      }
      return;
    }
    if (this.seen.has(event.data.event_id)) {
      this.metrics?.remoteRejected.inc({ reason: 'duplicate' });
      return;
    }
    remember(this.seen, this.seenOrder, event.data.event_id, this.dedupeWindow);
    this.deliver(event, 'remote');
  }

  private deliver(event: EventEnvelope, origin: 'local' | 'remote'): void {
    this.metrics?.delivered.inc({ type: event.type, origin });
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        // One broken listener must not keep the event from the others.
        this.log.error({ err, type: event.type }, 'event listener threw');
      }
    }
  }
}

/** Adds to a bounded set; beyond `window` the oldest tenth is forgotten at once (amortised). */
function remember(set: Set<string>, order: string[], id: string, window: number): void {
  set.add(id);
  order.push(id);
  if (order.length > window) {
    for (const old of order.splice(0, Math.ceil(window / 10))) set.delete(old);
  }
}
