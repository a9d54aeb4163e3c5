/** Providers, pricing and spend thresholds. The proxy owns the details of these sections. */
export const providersSchema = {
  type: 'array',
  default: [],
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'type', 'base_url'],
    properties: {
      name: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$' },
      type: { enum: ['openai', 'azure_openai', 'anthropic'] },
      base_url: { type: 'string', pattern: '^https?://' },
      api_key: { type: 'string' },
      api_version: { type: 'string', description: 'Azure OpenAI api-version.' },
      deployments: { type: 'object', additionalProperties: { type: 'string' }, description: 'Azure: model name → deployment name.' },
      models: { type: 'array', items: { type: 'string' }, default: ['*'] },
      priority: { type: 'integer', default: 100, description: 'Lower is tried first.' },
      timeout_ms: { type: 'integer', minimum: 1, default: 60000 },
      max_retries: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
      headers: { type: 'object', additionalProperties: { type: 'string' } },
    },
  },
} as const;

export const pricingSchema = {
  type: 'object',
  default: {},
  description: 'USD per 1M tokens by model (glob allowed): {input, output}.',
  additionalProperties: {
    type: 'object',
    additionalProperties: false,
    required: ['input', 'output'],
    properties: { input: { type: 'number', minimum: 0 }, output: { type: 'number', minimum: 0 } },
  },
} as const;

export const spendSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    thresholds: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['scope', 'period', 'usd'],
        properties: {
          scope: { enum: ['global', 'key', 'provider'] },
          scope_id: { type: 'string', description: 'Key id or provider name; omitted = every key or provider.' },
          period: { enum: ['day', 'month'] },
          usd: { type: 'number', exclusiveMinimum: 0 },
        },
      },
    },
  },
} as const;

export const healthChecksSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    interval_ms: { type: 'integer', minimum: 100, default: 30000 },
    timeout_ms: { type: 'integer', minimum: 10, default: 5000 },
    degraded_latency_ms: { type: 'integer', minimum: 1, default: 2000 },
  },
} as const;
