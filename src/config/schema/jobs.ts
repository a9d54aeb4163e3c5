/** `jobs`: scan jobs (docs/jobs.md). */
export const jobsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    queue: {
      enum: ['auto', 'kafka', 'embedded'],
      default: 'auto',
      description: 'Where chunks wait: Kafka (shared by every instance) or this instance (embedded). auto: Kafka when events.transport is kafka.',
    },
    chunk_size: { type: 'integer', minimum: 1, maximum: 10000, default: 500, description: 'Documents per chunk: the unit of work, of commit, and of rescanning after a crash (a chunk is also cut at chunk_max_bytes).' },
    chunk_max_bytes: { type: 'integer', minimum: 1024, maximum: 8388608, default: 700000, description: 'Bound of every scan job message (keep it under the brokers\' message.max.bytes): a chunk is cut before this size, a chunk\'s results are split into parts within it; a longer line is an error result, a longer result is trimmed.' },
    max_documents: { type: 'integer', minimum: 1, default: 1000000, description: 'Documents one job may hold; more is refused with 413.' },
    max_bytes: { type: 'integer', minimum: 1, default: 1073741824, description: 'Bytes one job may upload (decoded); more is refused with 413.' },
    files_dir: { type: 'string', minLength: 1, description: 'Directory whose JSONL files a job may name as file:// URLs; unset: file inputs are refused.' },
    concurrency: { type: 'integer', minimum: 1, maximum: 64, default: 2, description: 'Chunks one instance scans at once (each spreads over the whole worker pool).' },
    session_timeout_ms: { type: 'integer', minimum: 3000, maximum: 300000, default: 10000, description: 'Kafka: how long the group waits for a silent instance before its chunks go to another.' },
    progress_interval_ms: { type: 'integer', minimum: 100, default: 1000, description: 'Least time between two scan_job_progress events of one job.' },
    ttl_hours: { type: 'integer', minimum: 1, default: 168, description: 'Redis: a job and its results expire this long after the last write.' },
  },
} as const;
