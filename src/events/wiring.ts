import type { Registry } from 'prom-client';
import type { WardenConfig } from '../config/types.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { Services } from '../services.js';
import { EventBus } from './bus.js';
import { EventLog, clockSeq } from './event-log.js';
import { KafkaEventLogReader } from './kafka-event-log.js';
import { KafkaTransport } from './kafka-transport.js';
import { MemoryTransport } from './memory-transport.js';
import type { EventTransport } from './types.js';
import { EventStreamServer } from './ws-server.js';

export function createTransport(
  config: WardenConfig, instanceId: string, log: Logger, version: string,
  onLag?: (topic: string, partition: number, lag: number) => void,
): EventTransport {
  if (config.events.transport === 'memory') return new MemoryTransport();
  const k = config.kafka;
  return new KafkaTransport({
    brokers: k.brokers,
    clientId: k.client_id,
    topicPrefix: k.topic_prefix,
    instanceId,
    bufferSize: k.buffer_size,
    maxWaitMs: k.max_wait_ms,
    startTimeoutMs: k.start_timeout_ms,
    ssl: k.ssl,
    sasl: k.sasl,
    source: `warden/${version}/${instanceId}`,
    logTopic: eventLogTopic(config),
    logger: log,
    onLag,
  });
}

/** The one-partition topic every event is appended to for resumable streams (`<prefix>events`), or none. */
export function eventLogTopic(config: WardenConfig): string | undefined {
  return config.events.replay_retention > 0 ? `${config.kafka.topic_prefix}events` : undefined;
}

/** The resumable stream of each bus (fed from Kafka's event log topic, or from the bus itself). */
const replays = new WeakMap<EventBus, { log: EventLog; reader: KafkaEventLogReader | null }>();

/**
 * Builds and starts the bus before anything else is wired, so every subsystem can raise events
 * from its first moment, and announces `system_status: starting` (other instances' clients see it).
 */
export async function startEventBus(opts: { config: WardenConfig; instanceId: string; registry: Registry; log: Logger; version: string }): Promise<EventBus> {
  // The lag gauge lives with the bus's metrics; the transport reports into it once the bus exists.
  let bus: EventBus | undefined;
  const onLag = (topic: string, partition: number, lag: number) =>
    bus?.eventMetrics?.consumerLag.set({ topic, partition: String(partition) }, lag);
  const transport = createTransport(opts.config, opts.instanceId, opts.log, opts.version, onLag);
  bus = new EventBus({ instanceId: opts.instanceId, transport, registry: opts.registry, logger: opts.log });
  // The resumable stream: with Kafka, the event log topic's offsets; alone, this bus with clock seqs.
  const retention = opts.config.events.replay_retention;
  const log = new EventLog(retention);
  let reader: KafkaEventLogReader | null = null;
  if (transport.name === 'kafka' && retention > 0) {
    const k = opts.config.kafka;
    reader = new KafkaEventLogReader({
      brokers: k.brokers, clientId: k.client_id, instanceId: opts.instanceId, topic: eventLogTopic(opts.config)!,
      ssl: k.ssl, sasl: k.sasl, retention, maxWaitMs: k.max_wait_ms, log: opts.log,
    }, log);
    reader.start();
  } else {
    const next = clockSeq();
    bus.subscribe((event) => { log.append(next(), event); });
  }
  replays.set(bus, { log, reader });
  await bus.start();
  bus.emit('system_status', { status: 'starting', version: opts.version, detail: `transport ${transport.name}` });
  return bus;
}

/**
 * Wires the stream and the system_status lifecycle into the running service: /ws/events on the
 * API's http.Server (its GET /ws/health route reads `stream.health()`), the `events` section of /status, `ready`, `config_reloaded`,
 * `degraded` (transport lost) and `shutting_down`, then flushes and closes on shutdown.
 */
export function wireEvents(opts: { services: Services; lifecycle: Lifecycle; bus: EventBus; log: Logger; watchIntervalMs?: number }): EventStreamServer {
  const { services, lifecycle, bus, log } = opts;
  const version = services.version;
  const ws = services.config().ws;
  const stream = new EventStreamServer({
    bus,
    verifyJwt: (token) => services.jwt.verify(token),
    maxConnections: ws.max_connections,
    maxBufferedBytes: ws.max_buffered_bytes,
    heartbeatMs: ws.heartbeat_ms,
    maxMessageBytes: ws.max_message_bytes,
    log: replays.get(bus)?.log,
    registry: services.registry,
    logger: log,
  });

  services.statusSections.set('events', () => {
    const s = bus.status();
    return {
      status: s.connected ? 'ok' : 'degraded',
      transport: s.transport,
      transport_connected: s.connected,
      buffered: s.buffered,
      dropped: s.dropped,
      ws_connections: stream.connectionCount,
    };
  });

  // Tell clients when the transport is lost and when it is back.
  let wasConnected = bus.status().connected;
  const watcher = setInterval(() => {
    const now = bus.status().connected;
    if (now === wasConnected) return;
    wasConnected = now;
    bus.emit('system_status', now
      ? { status: 'ready', version, detail: `event transport ${bus.status().transport} reconnected` }
      : { status: 'degraded', version, detail: `event transport ${bus.status().transport} unreachable; events are buffered` });
  }, opts.watchIntervalMs ?? 1_000);
  watcher.unref();

  lifecycle.onReady((server) => {
    stream.attach(server);
    const drained = new Promise<void>((resolve) => server.once('close', () => resolve()));
    // Registered at ready, after every subsystem: shutdown runs hooks last-registered-first, so
    // this one runs first. It waits for in-flight requests (whose threats still go out) and
    // flushes the bus while the scan pool and the proxy those requests use are still open.
    lifecycle.onShutdown(async () => {
      clearInterval(watcher);
      bus.emit('system_status', { status: 'shutting_down', version, detail: 'graceful shutdown' });
      // WebSockets first: the http.Server only reports 'close' once they are gone too.
      await stream.close();
      const bound = Math.min(services.config().server.shutdown_timeout_ms, 10_000);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([drained, new Promise<void>((resolve) => { timer = setTimeout(resolve, bound); })]);
      clearTimeout(timer);
      await bus.stop();
      await replays.get(bus)?.reader?.stop();
    });
    bus.emit('system_status', { status: 'ready', version, detail: wasConnected ? 'accepting requests' : 'accepting requests; event transport unreachable' });
  });
  lifecycle.onReload((config) => {
    stream.updateLimits({ maxConnections: config.ws.max_connections, maxBufferedBytes: config.ws.max_buffered_bytes });
    bus.emit('system_status', { status: 'config_reloaded', version, detail: 'configuration reloaded' });
  });
  // Every reload is announced, a refused one too: the instance keeps its running configuration.
  lifecycle.onReloadFailed((error) => {
    bus.emit('system_status', { status: 'degraded', version, detail: `configuration reload refused, running configuration kept: ${error.split('\n').slice(0, 4).join(' ')}` });
  });
  return stream;
}
