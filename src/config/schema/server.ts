export const serverSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'HTTP listener.',
  properties: {
    host: { type: 'string', minLength: 1, default: '127.0.0.1', description: 'Address to bind.' },
    port: { type: 'integer', minimum: 0, maximum: 65535, default: 8080, description: 'Port to bind (0 picks a free port).' },
    trust_proxy: { type: 'boolean', default: false, description: 'Take the client address from X-Forwarded-For (behind a reverse proxy).' },
    secure_cookies: { type: 'boolean', default: false, description: 'Mark the session cookie Secure (set when served over TLS).' },
    shutdown_timeout_ms: { type: 'integer', minimum: 0, default: 10000, description: 'How long SIGTERM waits for in-flight requests.' },
    instance_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'Stable instance id; random per start when unset.' },
  },
} as const;
