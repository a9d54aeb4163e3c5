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
    headers_timeout_ms: {
      type: 'integer',
      minimum: 1000,
      maximum: 600000,
      default: 10000,
      description: "How long a client may take to send a request's headers (Node's server.headersTimeout); then the connection is closed with 408.",
    },
    request_timeout_ms: {
      type: 'integer',
      minimum: 1000,
      maximum: 3600000,
      default: 30000,
      description: 'How long a client may take to send a whole request, headers and body (Node\'s server.requestTimeout); then 408 and the connection is closed. Not a limit on the answer: a streamed completion may run longer. At least headers_timeout_ms.',
    },
    max_pending_connections_per_ip: {
      type: 'integer',
      minimum: 0,
      default: 512,
      description: 'Connections one client address may hold open before any request on them has been answered with a credential accepted (sockets still sending headers, idle new sockets); more are closed at once. 0 = no cap. High enough for a burst of parallel clients behind one address (each is pending only until its headers are in); slow senders are cut by the timeouts.',
    },
    instance_id: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,64}$', description: 'Stable instance id; random per start when unset.' },
  },
} as const;
