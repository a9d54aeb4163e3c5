import { Kafka, type Consumer } from 'kafkajs';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from '../log.js';
import { parseEnvelope } from './envelope.js';
import type { EventLog } from './event-log.js';
import { kafkaClient } from './kafka-log.js';

export interface KafkaEventLogOptions {
  brokers: string[];
  clientId: string;
  instanceId: string;
  /** The one-partition topic every instance appends every event to (`<prefix>events`). */
  topic: string;
  groupPrefix?: string;
  ssl?: boolean | ConnectionOptions;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  retention: number;
  /** kafka.max_wait_ms: longest a fetch waits for new events (default 50). */
  maxWaitMs?: number;
  log: Logger;
}

/**
 * Reads the event log topic into an EventLog: one partition, so its offsets order every event of
 * every instance the same way everywhere, and an event's seq is its offset. At start it reads
 * back `retention` events, so a client reconnecting to another instance can resume there too.
 */
export class KafkaEventLogReader {
  private readonly kafka: Kafka;
  private consumer: Consumer | null = null;
  private stopping = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private started = false;

  constructor(private readonly opts: KafkaEventLogOptions, private readonly target: EventLog) {
    const log = opts.log.child({ component: 'events.replay' });
    this.kafka = kafkaClient(opts, `${opts.clientId}-replay`, log);
  }

  /** Starts reading in the background; never throws (an unreachable Kafka is retried). */
  start(): void {
    void this.run();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.consumer?.disconnect().catch(() => undefined);
  }

  private async run(): Promise<void> {
    if (this.stopping) return;
    const admin = this.kafka.admin({ retry: { retries: 0 } });
    const consumer = this.kafka.consumer({
      groupId: `${this.opts.groupPrefix ?? 'warden-'}${this.opts.instanceId}-replay`,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: this.opts.maxWaitMs ?? 50,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2_000, restartOnFailure: async () => !this.stopping },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.CRASH, (e) => {
      if (!e.payload.restart) this.retry();
    });
    try {
      let from: number | null = null;
      if (!this.started) {
        await admin.connect();
        const offsets = await admin.fetchTopicOffsets(this.opts.topic);
        await admin.disconnect();
        const p0 = offsets.find((o) => o.partition === 0);
        if (!p0) throw new Error(`topic ${this.opts.topic} has no partition 0`);
        from = Math.max(Number(p0.low), Number(p0.high) - this.opts.retention);
        this.target.startAt(from);
      } else {
        from = this.target.lastSeq + 1;
      }
      await consumer.connect();
      await consumer.subscribe({ topics: [this.opts.topic], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          if (batch.partition !== 0) return;
          for (const m of batch.messages) {
            const parsed = parseEnvelope(m.value);
            if ('invalid' in parsed) continue;
            this.target.append(Number(m.offset), parsed);
          }
        },
      });
      consumer.seek({ topic: this.opts.topic, partition: 0, offset: String(from) });
      this.started = true;
    } catch (err) {
      await admin.disconnect().catch(() => undefined);
      this.opts.log.warn({ err: (err as Error).message, topic: this.opts.topic }, 'event log topic not readable yet; resuming clients wait for it');
      this.retry();
    }
  }

  private retry(): void {
    if (this.stopping || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.consumer?.disconnect().catch(() => undefined).then(() => this.run());
    }, 2_000);
    this.retryTimer.unref();
  }
}
