import { Kafka, Partitioners, type Consumer, type Producer } from 'kafkajs';
import type { ConnectionOptions } from 'node:tls';
import { WardenError } from '../errors.js';
import { kafkaClient } from '../events/kafka-log.js';
import type { Logger } from '../log.js';
import { decodeChunk, encodeChunk } from './chunk-codec.js';
import { resultMessages } from './result-messages.js';
import type { Chunk, ChunkHandler, ChunkQueue } from './types.js';

export interface KafkaChunkQueueOptions {
  brokers: string[];
  clientId: string;
  instanceId: string;
  /** `<prefix>scan-jobs` and `<prefix>scan-results`. */
  topicPrefix: string;
  /** The one consumer group every instance joins. */
  groupId: string;
  /** Chunks scanned at once on this instance (partitions consumed concurrently). */
  concurrency: number;
  /** How long the group waits for a silent member (a SIGKILLed instance) before its chunks go to others. */
  sessionTimeoutMs: number;
  /**
   * Longest a fetch waits when there is no chunk: kafka.max_wait_ms, at least 100. A real broker
   * answers a waiting fetch as soon as a chunk arrives, so a longer wait costs no pickup time
   * there, only fewer idle fetches (librdkafka's mock cluster does hold it the whole time).
   */
  maxWaitMs: number;
  /** jobs.chunk_max_bytes: no produce request this queue makes carries more than this per partition. */
  chunkMaxBytes: () => number;
  ssl?: boolean | ConnectionOptions;
  sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  log: Logger;
}

/** Longest a scanned chunk's offset waits for its commit while its batch goes on. */
const COMMIT_INTERVAL_MS = 1000;

/** Messages in order, cut into groups of at most maxBytes of values (a larger message alone). */
function bounded<M extends { value: string }>(messages: M[], maxBytes: number): M[][] {
  let chars = 0;
  for (const m of messages) chars += m.value.length;
  if (chars * 3 <= maxBytes) return [messages];
  const groups: M[][] = [];
  let group: M[] = [];
  let bytes = 0;
  for (const m of messages) {
    const b = Buffer.byteLength(m.value);
    if (group.length > 0 && bytes + b > maxBytes) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
    group.push(m);
    bytes += b;
  }
  if (group.length) groups.push(group);
  return groups;
}

/**
 * Chunks on Kafka: `<prefix>scan-jobs` carries them (keyed job/chunk, so they spread over the
 * partitions), every instance consumes it in ONE consumer group, so the partitions (and the
 * chunks) are shared out among the instances and a new instance takes its share by starting.
 * A chunk's offset is committed only after its results are written (kafkajs' auto-commit of
 * the offsets eachMessage resolved: per fetched batch, and at least once a second): an instance
 * killed mid-chunk leaves the chunk uncommitted and the group hands it to another member once
 * the session times out. Results also go to `<prefix>scan-results`.
 */
export class KafkaChunkQueue implements ChunkQueue {
  readonly name = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private consumer: Consumer | null = null;
  private producerConnected: Promise<void> | null = null;
  private handler: ChunkHandler | null = null;
  private stopping = false;
  private connected = false;
  private inFlight = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  readonly jobsTopic: string;
  readonly resultsTopic: string;

  constructor(private readonly opts: KafkaChunkQueueOptions) {
    this.jobsTopic = `${opts.topicPrefix}scan-jobs`;
    this.resultsTopic = `${opts.topicPrefix}scan-results`;
    const log = opts.log.child({ component: 'jobs.kafka' });
    this.kafka = kafkaClient(opts, `${opts.clientId}-jobs`, log, { requestTimeout: 10_000 });
    this.producer = this.kafka.producer({ allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: 1, initialRetryTime: 100 } });
    this.producer.on(this.producer.events.DISCONNECT, () => { this.producerConnected = null; });
  }

  async start(handler: ChunkHandler): Promise<void> {
    this.handler = handler;
    await this.startConsumer();
  }

  async publish(chunks: Chunk[]): Promise<void> {
    if (chunks.length === 0) return;
    try {
      await this.connectProducer();
      // Chunks of one send that land on one partition go as one record batch, and the brokers
      // bound a batch by message.max.bytes: so a send holds at most chunk_max_bytes in all.
      for (const group of bounded(chunks.map((c) => ({ key: `${c.job}/${c.chunk}`, value: encodeChunk(c), headers: { job_id: c.job } })), this.opts.chunkMaxBytes())) {
        await this.producer.send({ topic: this.jobsTopic, acks: -1, messages: group });
      }
    } catch (err) {
      this.producerConnected = null;
      throw new WardenError(503, 'api_error', `Kafka is unreachable, so the job could not be queued (${(err as Error).message}); nothing was accepted, try again later.`, { code: 'job_queue_unavailable' });
    }
  }

  /**
   * One message per chunk when it fits in chunk_max_bytes, else several (resultMessages), sent
   * one after another (one send each: messages of one send to one partition form one record
   * batch, which the brokers bound as a whole), so they stay in input order on the partition.
   */
  async publishResults(job: string, chunk: number, start: number, lines: string[]): Promise<void> {
    await this.connectProducer();
    for (const value of resultMessages(job, chunk, this.opts.instanceId, start, lines, this.opts.chunkMaxBytes())) {
      await this.producer.send({ topic: this.resultsTopic, acks: -1, messages: [{ key: job, value }] });
    }
  }

  status(): { queue: 'kafka'; connected: boolean; in_flight: number } {
    return { queue: 'kafka', connected: this.connected, in_flight: this.inFlight };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // Disconnecting waits for the chunks being scanned; what is not committed is redelivered.
    await Promise.allSettled([this.consumer?.disconnect(), this.producer.disconnect()]);
  }

  private connectProducer(): Promise<void> {
    this.producerConnected ??= this.producer.connect().catch((err: unknown) => {
      this.producerConnected = null;
      throw err;
    });
    return this.producerConnected;
  }

  private async startConsumer(): Promise<void> {
    if (this.stopping || !this.handler) return;
    const consumer = this.kafka.consumer({
      groupId: this.opts.groupId,
      allowAutoTopicCreation: false,
      sessionTimeout: this.opts.sessionTimeoutMs,
      rebalanceTimeout: Math.max(this.opts.sessionTimeoutMs, 10_000),
      heartbeatInterval: Math.max(100, Math.floor(this.opts.sessionTimeoutMs / 5)),
      maxWaitTimeInMs: this.opts.maxWaitMs,
      // One chunk per fetch and partition: a chunk waits in Kafka, not in our memory.
      maxBytesPerPartition: 4 * 1024 * 1024,
      retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2_000, restartOnFailure: async () => !this.stopping },
    });
    this.consumer = consumer;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      this.connected = true;
      this.failures = 0;
    });
    consumer.on(consumer.events.CRASH, (e) => {
      this.connected = false;
      this.opts.log.warn({ err: e.payload.error?.message, restart: e.payload.restart }, 'scan job consumer crashed');
      if (!e.payload.restart) this.scheduleRestart();
    });
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.jobsTopic], fromBeginning: true });
      await consumer.run({
        // kafkajs marks a chunk's offset done only once eachMessage resolves (its results are
        // written; a throw leaves it and what follows undone), and commits the offsets so marked
        // at the end of each fetched batch and at least every COMMIT_INTERVAL_MS in between: one
        // commit request per batch of chunks instead of one per chunk (a commit per chunk was a
        // fixed cost per chunk that made small chunks dear). An instance killed before such a
        // commit leaves those chunks to be scanned again, as a crash mid-chunk does; the store
        // keeps their first results.
        autoCommit: true,
        autoCommitInterval: COMMIT_INTERVAL_MS,
        partitionsConsumedConcurrently: this.opts.concurrency,
        eachMessage: async ({ partition, message }) => {
          const chunk = this.parseChunk(message.value, partition, message.offset);
          if (!chunk) return;
          this.inFlight++;
          try {
            await this.handler!(chunk);
          } finally {
            this.inFlight--;
          }
        },
      });
    } catch (err) {
      this.opts.log.warn({ err: (err as Error).message }, 'scan job consumer could not start; retrying');
      await consumer.disconnect().catch(() => undefined);
      this.scheduleRestart();
    }
  }

  /** A message that is not a chunk (encodeChunk) is logged with the reason and skipped. */
  private parseChunk(value: Buffer | null, partition: number, offset: string): Chunk | null {
    try {
      if (!value) throw new Error('no value');
      return decodeChunk(value.toString());
    } catch (err) {
      this.opts.log.warn({ topic: this.jobsTopic, partition, offset, err: (err as Error).message }, 'skipped a malformed scan job chunk');
      return null;
    }
  }

  private scheduleRestart(): void {
    if (this.stopping || this.retryTimer) return;
    // 2 s, doubling to 30 s while it keeps failing (e.g. the topic was never created).
    const delay = Math.min(30_000, 2_000 * 2 ** this.failures++);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.consumer?.disconnect().catch(() => undefined).then(() => this.startConsumer());
    }, delay);
    this.retryTimer.unref();
  }
}

