export const eventsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    transport: { enum: ['memory', 'kafka'], default: 'memory' },
    replay_retention: {
      type: 'integer', minimum: 0, maximum: 1000000, default: 10000,
      description: 'Events each instance keeps for WebSocket clients that resume with `since` (0: no replay).',
    },
  },
} as const;

export const kafkaSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    brokers: { type: 'array', items: { type: 'string', minLength: 1 }, default: ['127.0.0.1:9092'] },
    client_id: { type: 'string', default: 'warden' },
    topic_prefix: { type: 'string', default: 'warden.' },
    buffer_size: { type: 'integer', minimum: 1, default: 10000, description: 'Events kept while Kafka is unreachable.' },
    max_wait_ms: { type: 'integer', minimum: 1, maximum: 30000, default: 50, description: 'Longest a consumer fetch waits when there is nothing new (events, the replay log; scan-job chunks: at least 100). Real brokers answer a waiting fetch as soon as data arrives, so a higher value only cuts idle fetches.' },
    start_timeout_ms: { type: 'integer', minimum: 0, default: 10000, description: 'How long start-up waits for Kafka before running degraded.' },
    ssl: { type: 'boolean', default: false },
    sasl: {
      type: 'object',
      additionalProperties: false,
      required: ['mechanism', 'username', 'password'],
      properties: {
        mechanism: { enum: ['plain', 'scram-sha-256', 'scram-sha-512'] },
        username: { type: 'string' },
        password: { type: 'string' },
      },
    },
  },
} as const;

export const wsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    max_connections: { type: 'integer', minimum: 1, default: 10000 },
    max_buffered_bytes: { type: 'integer', minimum: 1024, default: 1048576 },
    heartbeat_ms: { type: 'integer', minimum: 100, default: 30000 },
    max_message_bytes: { type: 'integer', minimum: 64, default: 65536 },
  },
} as const;
