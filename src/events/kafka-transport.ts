import { Kafka, Partitioners, type Admin, type Consumer, type Producer, type Message } from 'kafkajs';
import type { ConnectionOptions } from 'node:tls';
import { log as rootLog, type Logger } from '../log.js';
import { parseEnvelope } from './envelope.js';
import { kafkaClient } from './kafka-log.js';
import {
  EVENT_TOPICS, EVENT_TYPES,
  type EventEnvelope, type EventListener, type EventTransport, type EventType, type TransportStatus,
} from './types.js';

export interface KafkaSaslOptions {
  mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512';
  username: string;
  password: string;
}

export interface KafkaTransportOptions {
  brokers: string[];
  clientId: string;
  instanceId: string;
  /** Topic names are prefix + EVENT_TOPICS[type]; default `warden.`. */
  topicPrefix?: string;
  /** Consumer group is groupPrefix + instance id, so every instance reads every event. */
  groupPrefix?: string;
  sasl?: KafkaSaslOptions;
  /** true, or TLS options (CA, client certificate) for the brokers. */
  ssl?: boolean | ConnectionOptions;
  /** Events kept while Kafka is unreachable; when full the oldest is dropped and counted. */
  bufferSize?: number;
  /** Longest a fetch waits for data; bounds cross-instance latency on brokers that don't wake early. */
  maxWaitMs?: number;
  /** How long start() waits for Kafka before letting the service run degraded. */
  startTimeoutMs?: number;
  /** How often reachability is probed while idle, so status notices an outage without traffic. */
  healthIntervalMs?: number;
  /** Source attribute of the CloudEvents headers. */
  source?: string;
  logger?: Logger;
  /** The one-partition event log topic every event is also appended to (resumable streams); none when unset. */
  logTopic?: string;
  /** Called with the consumer lag per topic partition after each fetched batch. */
  onLag?: (topic: string, partition: number, lag: number) => void;
}

interface Pending {
  event: EventEnvelope;
  key: string;
}

const MAX_BATCH = 500;
const BACKOFF_MIN_MS = 200;
const BACKOFF_MAX_MS = 5_000;
/** Pause before appending to the event log topic again after a failure. */
const LOG_RETRY_MS = 5_000;

/**
 * Kafka transport: one topic per event type, the envelope as the value, the natural id as the key.
 *
 * Publishing never throws. Events go into a bounded buffer and a single flush loop sends them in
 * order; a failed send puts the batch back at the head and retries with backoff, so events wait
 * while Kafka is down and go out in the order raised when it returns.
 *
 * Consuming: every instance has its own consumer group over all four topics and starts from the
 * offsets that were latest when it started (a new instance does not replay history to its
 * clients). After that, a reset (e.g. a broker that lost its log) goes to the earliest offset, so
 * nothing published after our start is skipped; the bus drops the resulting duplicates.
 */
export class KafkaTransport implements EventTransport {
  readonly name = 'kafka' as const;
  private readonly opts: Required<Pick<KafkaTransportOptions,
    'topicPrefix' | 'groupPrefix' | 'bufferSize' | 'maxWaitMs' | 'startTimeoutMs' | 'healthIntervalMs' | 'source'>> & KafkaTransportOptions;
  private readonly log: Logger;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly consumer: Consumer;
  private readonly admin: Admin;
  private readonly topicToType = new Map<string, EventType>();
  private listener: EventListener | null = null;

  private buffer: Pending[] = [];
  private inflight: Pending[] = [];
  /** Sent to the per-type topics, not yet to the event log topic. */
  private logPending: Message[] = [];
  private logWarnedAt = 0;
  private logSending: Promise<void> | null = null;
  private logRetryAt = 0;
  private dropped = 0;
  private flushing: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private backoffMs = BACKOFF_MIN_MS;

  private producerConnected = false;
  /**
   * Who is responsible for the consumer now. `down`: nobody, we start it (at start, after a failed
   * start, after a crash kafkajs will not restart). `kafkajs`: kafkajs restarts it itself after a
   * retriable crash; starting it from here too would run two group members in one client.
   */
  private consumerState: 'down' | 'starting' | 'kafkajs' | 'up' = 'down';
  private adminConnected = false;
  /** Last verdict on reaching the brokers: a send or a probe. */
  private reachable = false;
  private stopping = false;
  private consumerStarting: Promise<void> | null = null;
  private consumerRetryTimer: NodeJS.Timeout | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private startOffsets: Map<string, Map<number, string>> | null = null;
  private joinedOnce = false;
  private startedAtMs = 0;

  constructor(options: KafkaTransportOptions) {
    if (!options.brokers?.length) throw new Error('kafka.brokers must list at least one broker');
    this.opts = {
      topicPrefix: 'warden.',
      groupPrefix: 'warden-',
      bufferSize: 10_000,
      maxWaitMs: 50,
      startTimeoutMs: 10_000,
      healthIntervalMs: 3_000,
      source: `warden/${options.instanceId}`,
      ...options,
    };
    if (!Number.isInteger(this.opts.bufferSize) || this.opts.bufferSize < 1) {
      throw new Error(`kafka buffer size must be a positive integer, got ${this.opts.bufferSize}`);
    }
    this.log = (options.logger ?? rootLog).child({ component: 'events.kafka' });
    for (const type of EVENT_TYPES) this.topicToType.set(this.topic(type), type);

    this.kafka = kafkaClient(this.opts, this.opts.clientId, this.log, { requestTimeout: 10_000 });
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 1, initialRetryTime: 100 } });
    this.consumer = this.kafka.consumer({
      groupId: `${this.opts.groupPrefix}${this.opts.instanceId}`,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: this.opts.maxWaitMs,
      sessionTimeout: 30_000,
      heartbeatInterval: 3_000,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2_000, restartOnFailure: async () => !this.stopping },
    });
    this.admin = this.kafka.admin({ retry: { retries: 0 } });

    this.producer.on(this.producer.events.DISCONNECT, () => { this.producerConnected = false; });
    this.consumer.on(this.consumer.events.GROUP_JOIN, (e) => this.onGroupJoin(e.payload.memberAssignment));
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      this.log.warn({ err: e.payload.error?.message, restart: e.payload.restart }, 'kafka consumer crashed');
      // kafkajs has already disconnected the consumer; it restarts it only after retriable errors.
      this.consumerState = e.payload.restart ? 'kafkajs' : 'down';
      if (!e.payload.restart && !this.stopping) this.scheduleConsumerStart();
    });
    this.consumer.on(this.consumer.events.FETCH, () => { this.consumerState = 'up'; });
  }

  topic(type: EventType): string {
    return `${this.opts.topicPrefix}${EVENT_TOPICS[type]}`;
  }

  /** Connects producer and consumer; resolves when both are up or after startTimeoutMs (then runs degraded). */
  async start(): Promise<void> {
    this.stopping = false;
    this.startedAtMs = Date.now();
    const ready = Promise.all([this.flush(), this.startConsumer()]);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((res) => { timer = setTimeout(() => res('timeout'), this.opts.startTimeoutMs); });
    const outcome = await Promise.race([ready.then(() => 'ok' as const), timeout]);
    clearTimeout(timer);
    if (outcome === 'timeout' || !this.reachable) {
      this.log.warn({ brokers: this.opts.brokers }, 'kafka not reachable at start; events are buffered and local delivery continues');
    }
    this.healthTimer = setInterval(() => { void this.probe(); }, this.opts.healthIntervalMs);
    this.healthTimer.unref();
  }

  publish(event: EventEnvelope, key: string): void {
    this.buffer.push({ event, key });
    this.trimBuffer();
    // While a retry is scheduled Kafka is down: the retry sends this too, without a connect per event.
    if (!this.stopping && !this.retryTimer) void this.flush();
  }

  onRemoteEvent(listener: EventListener): void {
    this.listener = listener;
  }

  status(): TransportStatus {
    return {
      transport: 'kafka',
      connected: this.reachable && this.producerConnected,
      buffered: this.buffer.length + this.inflight.length,
      dropped: this.dropped,
    };
  }

  /** Publishes what it can within a few seconds, then disconnects. Unsent events are logged. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.healthTimer) clearInterval(this.healthTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.consumerRetryTimer) clearTimeout(this.consumerRetryTimer);
    if (this.reachable) {
      const deadline = Date.now() + 3_000;
      while ((this.buffer.length || this.inflight.length) && Date.now() < deadline && this.reachable) {
        await this.flush();
        if (this.buffer.length) await new Promise((r) => setTimeout(r, 50));
      }
    }
    const unsent = this.buffer.length + this.inflight.length;
    if (unsent) this.log.warn({ unsent }, 'stopping with events that never reached kafka');
    // The event log's last appends, briefly: a failing log topic must not hold up the shutdown.
    if (this.logSending) await Promise.race([this.logSending, new Promise((r) => setTimeout(r, 2_000).unref())]);
    await this.consumerStarting?.catch(() => undefined);
    await Promise.allSettled([this.consumer.disconnect(), this.producer.disconnect(), this.admin.disconnect()]);
    this.consumerState = 'down';
    this.producerConnected = false;
    this.reachable = false;
  }

  private trimBuffer(): void {
    const over = this.buffer.length + this.inflight.length - this.opts.bufferSize;
    if (over > 0) {
      this.buffer.splice(0, Math.min(over, this.buffer.length));
      this.dropped += over;
      this.log.warn({ dropped: this.dropped, capacity: this.opts.bufferSize }, 'event buffer full: dropped the oldest events');
    }
  }

  /** The single flush loop: at most one runs; callers share its promise. */
  private flush(): Promise<void> {
    if (!this.flushing) {
      this.flushing = this.flushLoop().finally(() => { this.flushing = null; });
    }
    return this.flushing;
  }

  private async flushLoop(): Promise<void> {
    while (this.buffer.length > 0 || !this.producerConnected) {
      try {
        if (!this.producerConnected) {
          await this.producer.connect();
          this.producerConnected = true;
          this.markReachable(true);
        }
        if (this.buffer.length === 0) break;
        this.inflight = this.buffer.splice(0, MAX_BATCH);
        const { topicMessages, log } = this.toTopicMessages(this.inflight);
        await this.producer.sendBatch({ acks: -1, topicMessages });
        this.inflight = [];
        if (log.length) {
          this.logPending.push(...log);
          this.kickLog();
        }
        this.backoffMs = BACKOFF_MIN_MS;
        this.markReachable(true);
      } catch (err) {
        // Put the batch back in front, in order; the buffer bound still holds.
        if (this.inflight.length) this.buffer.unshift(...this.inflight);
        this.inflight = [];
        this.trimBuffer();
        this.markReachable(false, err);
        if (!this.stopping) this.scheduleRetry();
        return;
      }
    }
  }

  private scheduleRetry(): void {
    if (this.retryTimer) return;
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, BACKOFF_MAX_MS);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.flush();
    }, delay);
    this.retryTimer.unref();
  }

  /**
   * Appends to the event log topic what the per-type topics already have, in the same order (one
   * send at a time). It runs beside the flush loop, never in it: a log topic that fails (e.g. was
   * never created) never delays the per-type topics. Its entries wait here (bounded like the
   * buffer) and are retried after a pause.
   */
  private kickLog(): void {
    if (this.logSending || this.logPending.length === 0 || Date.now() < this.logRetryAt) return;
    this.logSending = this.sendLog().finally(() => {
      this.logSending = null;
      this.kickLog();
    });
  }

  private async sendLog(): Promise<void> {
    while (this.logPending.length > 0 && this.opts.logTopic) {
      const batch = this.logPending.slice(0, MAX_BATCH);
      try {
        await this.producer.send({ topic: this.opts.logTopic, acks: -1, messages: batch });
        this.logPending.splice(0, batch.length);
      } catch (err) {
        const over = this.logPending.length - this.opts.bufferSize;
        if (over > 0) this.logPending.splice(0, over);
        this.logRetryAt = Date.now() + LOG_RETRY_MS;
        if (!this.stopping) setTimeout(() => this.kickLog(), LOG_RETRY_MS).unref();
        if (Date.now() - this.logWarnedAt > 60_000) {
          this.logWarnedAt = Date.now();
          this.log.warn({ err: (err as Error).message, topic: this.opts.logTopic, waiting: this.logPending.length },
            'cannot append to the event log topic (create it with one partition): resuming WebSocket clients miss these events meanwhile');
        }
        return;
      }
    }
  }

  private toTopicMessages(batch: Pending[]): { topicMessages: { topic: string; messages: Message[] }[]; log: Message[] } {
    const byTopic = new Map<string, Message[]>();
    const log: Message[] = [];
    for (const { event, key } of batch) {
      const topic = this.topic(event.type);
      let messages = byTopic.get(topic);
      if (!messages) byTopic.set(topic, (messages = []));
      const message: Message = {
        key,
        value: JSON.stringify(event),
        timestamp: String(Date.parse(event.timestamp)),
        headers: {
          event_type: event.type,
          event_id: event.data.event_id,
          instance_id: event.data.instance_id,
          // CloudEvents Kafka protocol binding, binary mode.
          ce_specversion: '1.0',
          ce_id: event.data.event_id,
          ce_type: `warden.${event.type}`,
          ce_source: this.opts.source,
          ce_time: event.timestamp,
          'content-type': 'application/json',
        },
      };
      messages.push(message);
      if (this.opts.logTopic) log.push({ ...message, partition: 0 });
    }
    // `log`: for the event log topic, every type on one partition, in the order raised (src/events/kafka-event-log.ts).
    return { topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })), log };
  }

  private markReachable(ok: boolean, err?: unknown): void {
    if (ok !== this.reachable) {
      if (ok) this.log.info({ buffered: this.buffer.length }, 'kafka reachable');
      else this.log.warn({ err: (err as Error | undefined)?.message, buffered: this.buffer.length }, 'kafka unreachable; buffering events');
    }
    this.reachable = ok;
    if (!ok) this.producerConnected = this.producerConnected && !isConnectionError(err);
  }

  /** Idle reachability check; also restarts the flush loop and the consumer after an outage. */
  private async probe(): Promise<void> {
    if (this.stopping) return;
    try {
      if (!this.adminConnected) {
        await this.admin.connect();
        this.adminConnected = true;
      }
      await this.admin.describeCluster();
      this.markReachable(true);
      // Kafka answers again: send now rather than at the end of the backoff, and reconnect the
      // producer even when idle, so status recovers without waiting for an event.
      if (this.buffer.length || !this.producerConnected) {
        if (this.retryTimer) clearTimeout(this.retryTimer);
        this.retryTimer = null;
        this.backoffMs = BACKOFF_MIN_MS;
        void this.flush();
      }
      if (this.consumerState === 'down' && !this.consumerStarting && !this.consumerRetryTimer) this.scheduleConsumerStart(0);
    } catch (err) {
      this.adminConnected = false;
      await this.admin.disconnect().catch(() => undefined);
      this.markReachable(false, err);
    }
  }

  private startConsumer(): Promise<void> {
    if (!this.consumerStarting && this.consumerState === 'down' && !this.stopping) {
      this.consumerState = 'starting';
      this.consumerStarting = this.runConsumer()
        .catch(async (err) => {
          this.log.warn({ err: (err as Error).message }, 'kafka consumer could not start; retrying');
          // A half-started consumer (connected, or subscribed) must be reset before the next run().
          await this.consumer.disconnect().catch(() => undefined);
          this.consumerState = 'down';
          this.scheduleConsumerStart();
        })
        .finally(() => { this.consumerStarting = null; });
    }
    return this.consumerStarting ?? Promise.resolve();
  }

  private scheduleConsumerStart(delayMs = 2_000): void {
    if (this.stopping || this.consumerRetryTimer) return;
    this.consumerRetryTimer = setTimeout(() => {
      this.consumerRetryTimer = null;
      void this.startConsumer();
    }, delayMs);
    this.consumerRetryTimer.unref();
  }

  private async runConsumer(): Promise<void> {
    const topics = EVENT_TYPES.map((t) => this.topic(t));
    if (!this.joinedOnce && !this.startOffsets) this.startOffsets = await this.latestOffsets(topics);
    await this.consumer.connect();
    // fromBeginning applies only where the group has no usable offset; the first join seeks to
    // the offsets that were latest at start (onGroupJoin), so this matters only after a reset.
    await this.consumer.subscribe({ topics, fromBeginning: true });
    await this.consumer.run({
      autoCommit: true,
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) this.receive(batch.topic, message);
        const lag = Number(batch.offsetLag());
        if (Number.isFinite(lag)) this.opts.onLag?.(batch.topic, batch.partition, lag);
      },
    });
    // run() also returns when the first join failed (kafkajs reports that as a crash and the
    // CRASH handler has set the state); otherwise the consumer is up.
    if (this.consumerState === 'starting') this.consumerState = 'up';
  }

  private async latestOffsets(topics: string[]): Promise<Map<string, Map<number, string>> | null> {
    try {
      if (!this.adminConnected) {
        await this.admin.connect();
        this.adminConnected = true;
      }
      const result = new Map<string, Map<number, string>>();
      for (const topic of topics) {
        const offsets = await this.admin.fetchTopicOffsets(topic);
        result.set(topic, new Map(offsets.map((o) => [o.partition, o.high])));
      }
      return result;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'could not read start offsets; events older than this start are skipped by time');
      return null;
    }
  }

  private onGroupJoin(assignment: Record<string, number[]>): void {
    this.consumerState = 'up';
    this.markReachable(true);
    if (this.joinedOnce) return;
    this.joinedOnce = true;
    if (!this.startOffsets) return;
    for (const [topic, partitions] of Object.entries(assignment)) {
      for (const partition of partitions) {
        const offset = this.startOffsets.get(topic)?.get(partition);
        // Synchronous, inside the join: kafkajs applies it before the first fetch.
        if (offset !== undefined) this.consumer.seek({ topic, partition, offset });
      }
    }
  }

  private receive(topic: string, message: { value: Buffer | null; timestamp: string; headers?: Record<string, unknown> }): void {
    // Own events come back too: the bus drops them (and notices another instance using our id).
    // Without start offsets (Kafka was down at start) skip what predates this instance.
    if (!this.startOffsets && Number(message.timestamp) < this.startedAtMs) return;
    const parsed = parseEnvelope(message.value);
    if ('invalid' in parsed) {
      this.log.warn({ topic, reason: parsed.invalid }, 'ignored a malformed event from kafka');
      return;
    }
    if (this.topicToType.get(topic) !== parsed.type) {
      this.log.warn({ topic, type: parsed.type }, 'ignored an event on the wrong topic');
      return;
    }
    this.listener?.(parsed);
  }
}

function isConnectionError(err: unknown): boolean {
  const name = (err as Error | undefined)?.name ?? '';
  const msg = (err as Error | undefined)?.message ?? '';
  return name === 'KafkaJSConnectionError' || name === 'KafkaJSNumberOfRetriesExceeded' || /connect|ECONNREFUSED|closed/i.test(msg);
}
