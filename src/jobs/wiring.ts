import type { WardenConfig } from '../config/types.js';
import type { Lifecycle } from '../lifecycle.js';
import type { Logger } from '../log.js';
import type { ScanService } from '../scan-service/service.js';
import type { Services } from '../services.js';
import { EmbeddedChunkQueue } from './embedded-queue.js';
import { KafkaChunkQueue } from './kafka-queue.js';
import { MemoryJobStore } from './memory-store.js';
import { RedisJobStore } from './redis-store.js';
import { ChunkRunner } from './runner.js';
import { JobService } from './service.js';
import type { ChunkQueue, JobStore } from './types.js';

/** Kafka when jobs.queue says so, or (auto) when events already go through Kafka. */
export function jobQueueKind(config: WardenConfig): 'kafka' | 'embedded' {
  const q = config.jobs.queue;
  return q === 'auto' ? (config.events.transport === 'kafka' ? 'kafka' : 'embedded') : q;
}

export function createJobQueue(config: WardenConfig, instanceId: string, log: Logger): ChunkQueue {
  const j = config.jobs;
  if (jobQueueKind(config) === 'embedded') return new EmbeddedChunkQueue(j.concurrency, log);
  const k = config.kafka;
  return new KafkaChunkQueue({
    brokers: k.brokers,
    clientId: k.client_id,
    instanceId,
    topicPrefix: k.topic_prefix,
    groupId: `${k.topic_prefix}scan-jobs`,
    concurrency: j.concurrency,
    sessionTimeoutMs: j.session_timeout_ms,
    ssl: k.ssl,
    sasl: k.sasl,
    log,
  });
}

/**
 * Scan jobs in the running service: the job store (Redis when the deployment has Redis, so
 * every instance sees every job; else this process), the chunk queue (Kafka or embedded), the
 * runner that scans chunks through the one scan service, and the `jobs` section of /status.
 * The queue starts consuming once the service is ready and stops first on shutdown.
 */
export function wireJobs(opts: { services: Services; lifecycle: Lifecycle; scans: ScanService; log: Logger }): JobService {
  const { services, lifecycle, log } = opts;
  const config = services.config();
  const store: JobStore = services.redis
    ? new RedisJobStore(services.redis, config.redis.key_prefix, config.jobs.ttl_hours * 3600)
    : new MemoryJobStore();
  if (!services.redis && jobQueueKind(config) === 'kafka') {
    log.warn('scan jobs go through Kafka but their state is kept in this process (no redis.url): other instances cannot see these jobs');
  }
  const queue = createJobQueue(config, services.instanceId, log);
  const runner = new ChunkRunner({
    store,
    queue: () => queue,
    scans: opts.scans,
    events: services.events,
    instanceId: services.instanceId,
    progressIntervalMs: () => services.config().jobs.progress_interval_ms,
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
    void queue.start(async (chunk) => { await runner.run(chunk); });
  });
  lifecycle.onShutdown(async () => {
    await queue.stop();
    await store.close();
  });
  return jobs;
}
