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
      stream_idle_timeout_ms: { type: 'integer', minimum: 1, default: 30000, description: 'Longest silence allowed inside a streamed response.' },
      retry_backoff_ms: { type: 'integer', minimum: 0, maximum: 60000, default: 100, description: 'First retry delay; doubled per retry, with jitter.' },
      max_response_bytes: { type: 'integer', minimum: 1024, default: 8388608, description: 'Longest upstream response; a longer one is cut off with 502.' },
      breaker_failures: { type: 'integer', minimum: 1, maximum: 1000, default: 5, description: 'Consecutive failures that open the circuit breaker.' },
      breaker_cooldown_ms: { type: 'integer', minimum: 1, default: 30000, description: 'How long an open breaker skips the provider before one trial request.' },
      anthropic_version: { type: 'string', description: 'Anthropic: anthropic-version header (default 2023-06-01).' },
      default_max_tokens: { type: 'integer', minimum: 1, description: 'Anthropic: max_tokens when the client sends none (default 4096).' },
      stream_usage: { type: 'boolean', default: true, description: 'OpenAI-compatible: ask for stream_options.include_usage when streaming.' },
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
