import type { WardenConfig } from '../config/types.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { ScanService } from '../scan-service/service.js';
import type { Services } from '../services.js';
import { EmbeddedChunkQueue } from './embedded-queue.js';
import { KafkaChunkQueue } from './kafka-queue.js';
import { RedisJobStore } from './redis-store.js';
import { ChunkRunner } from './runner.js';
import { JobService } from './service.js';
import type { ChunkQueue, ChunkSpool } from './types.js';

/** Kafka when jobs.queue says so, or (auto) when events already go through Kafka. */
export function jobQueueKind(config: WardenConfig): 'kafka' | 'embedded' {
  const q = config.jobs.queue;
  return q === 'auto' ? (config.events.transport === 'kafka' ? 'kafka' : 'embedded') : q;
}

export function createJobQueue(config: WardenConfig, instanceId: string, log: Logger, spool: ChunkSpool | null = null, chunkMaxBytes = () => config.jobs.chunk_max_bytes): ChunkQueue {
  const j = config.jobs;
  if (jobQueueKind(config) === 'embedded') return new EmbeddedChunkQueue(j.concurrency, log, { spool });
  const k = config.kafka;
  return new KafkaChunkQueue({
    brokers: k.brokers,
    clientId: k.client_id,
    instanceId,
    topicPrefix: k.topic_prefix,
    groupId: `${k.topic_prefix}scan-jobs`,
    concurrency: j.concurrency,
    sessionTimeoutMs: j.session_timeout_ms,
    maxWaitMs: Math.max(100, k.max_wait_ms),
    chunkMaxBytes,
    ssl: k.ssl,
    sasl: k.sasl,
    log,
  });
}

/**
 * Scan jobs in the running service: the job store (Redis when the deployment has Redis, so
 * every instance sees every job; else the storage backend's: SQLite keeps jobs, results and the
 * embedded queue's unfinished chunks across restarts, memory keeps them in this process), the
 * chunk queue (Kafka or embedded), the runner that scans chunks through the one scan service,
 * and the `jobs` section of /status. Once the service is ready, a restarted SQLite instance fails
 * the uploads its stop cut short and takes up its unfinished chunks; then the queue starts
 * consuming. It stops first on shutdown.
 */
export function wireJobs(opts: { services: Services; lifecycle: Lifecycle; scans: ScanService; log: Logger }): JobService {
  const { services, lifecycle, log } = opts;
  const config = services.config();
  const ttl = config.jobs.ttl_hours * 3600;
  const { store, spool } = services.redis
    ? { store: new RedisJobStore(services.redis, config.redis.key_prefix, ttl), spool: null }
    : services.storage.jobs(ttl);
  const embedded = jobQueueKind(config) === 'embedded';
  if (!services.redis && !embedded) {
    log.warn(`scan jobs go through Kafka but their state is kept by this instance alone (${store.backend}, no redis.url): other instances cannot see these jobs`);
  }
  const queue = createJobQueue(config, services.instanceId, log, embedded ? spool : null, () => services.config().jobs.chunk_max_bytes);
  const runner = new ChunkRunner({
    store,
    queue: () => queue,
    scans: opts.scans,
    events: services.events,
    instanceId: services.instanceId,
    progressIntervalMs: () => services.config().jobs.progress_interval_ms,
    chunkMaxBytes: () => services.config().jobs.chunk_max_bytes,
    log,
  });
  const jobs = new JobService({
    store,
    queue: () => queue,
    runner,
    limits: () => {
      const j = services.config().jobs;
      return { chunkSize: j.chunk_size, chunkMaxBytes: j.chunk_max_bytes, maxDocuments: j.max_documents };
    },
    instanceId: services.instanceId,
    log,
  });

  services.statusSections.set('jobs', () => {
    const s = queue.status();
    return { status: s.connected ? 'ok' : 'degraded', queue: s.queue, queue_connected: s.connected, chunks_in_flight: s.in_flight, store: store.backend };
  });
  lifecycle.onReady(() => {
    // Not awaited: a Kafka that is down at start must not hold up the ready log line.
    void (async () => {
      // Only SQLite has a spool, and one server per SQLite file: a job of this store still reading its upload was cut by the last stop.
      if (spool) await jobs.failCutUploads();
      await queue.start(async (chunk) => { await runner.run(chunk); });
    })().catch((err: unknown) => log.error({ err: (err as Error).message }, 'scan jobs could not start'));
  });
  lifecycle.onShutdown(async () => {
    await queue.stop();
    await store.close();
  });
  return jobs;
}
