export const redisSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    url: { type: 'string', pattern: '^rediss?://', description: 'Set: rate limits, keys, scans, spend and provider health live in Redis.' },
    key_prefix: { type: 'string', default: 'warden:', description: 'Prefix of every Redis key.' },
  },
} as const;

export const storageSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    store_input: { enum: ['excerpt', 'full', 'none'], default: 'excerpt' },
    excerpt_chars: { type: 'integer', minimum: 16, maximum: 100000, default: 512 },
    max_scans: { type: 'integer', minimum: 1, default: 100000 },
    retention_days: { type: 'number', exclusiveMinimum: 0, default: 30 },
  },
} as const;
