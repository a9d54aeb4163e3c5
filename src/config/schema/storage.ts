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
    backend: {
      enum: ['memory', 'sqlite', 'redis'],
      description: 'Where keys, settings, scan records, analytics, spend and reports live. Unset: redis when redis.url is set, else sqlite. memory forgets everything at exit (tests, throwaway runs).',
    },
    sqlite_path: { type: 'string', minLength: 1, default: './var/warden.db', description: 'The SQLite file (relative to the working directory; its folder is created). One Warden server per file.' },
    store_input: { enum: ['excerpt', 'full', 'none'], default: 'excerpt' },
    excerpt_chars: { type: 'integer', minimum: 16, maximum: 100000, default: 512 },
    max_scans: { type: 'integer', minimum: 1, default: 100000, description: 'Scan records kept (the newest).' },
    retention_days: { type: 'number', exclusiveMinimum: 0, default: 30, description: 'Scan records older than this are deleted.' },
  },
} as const;
