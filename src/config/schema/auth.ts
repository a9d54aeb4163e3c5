export const authSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    jwt: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        algorithm: { enum: ['HS256', 'RS256'], default: 'HS256', description: 'Pinned signing algorithm.' },
        secret: { type: 'string', minLength: 32, description: 'HS256 shared secret, at least 32 bytes. Random per start when unset (tokens then die with the process).' },
        public_key: { type: 'string', description: 'RS256 PEM public key (or a path to a PEM file).' },
        private_key: { type: 'string', description: 'RS256 PEM private key (or a path), needed for Warden to issue tokens at login.' },
        jwks_url: { type: 'string', format: 'uri', description: 'RS256 JWKS URL, instead of public_key.' },
        issuer: { type: 'string', minLength: 1, default: 'warden', description: 'Required iss claim.' },
        audience: { type: 'string', minLength: 1, default: 'warden-api', description: 'Required aud claim.' },
        ttl_seconds: { type: 'integer', minimum: 60, maximum: 604800, default: 3600, description: 'Lifetime of tokens issued at login.' },
        clock_tolerance_seconds: { type: 'integer', minimum: 0, maximum: 300, default: 30 },
      },
    },
    users: {
      type: 'array',
      default: [],
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['username', 'password_hash', 'role'],
        properties: {
          username: { type: 'string', minLength: 1, maxLength: 128 },
          password_hash: { type: 'string', pattern: '^scrypt\\$', description: 'From `warden hash-password`.' },
          role: { enum: ['admin', 'analyst', 'service'] },
        },
      },
    },
    bootstrap_key: { type: 'string', pattern: '^svc_[A-Za-z0-9_-]{20,}$', description: 'An admin API key accepted at start (else WARDEN_BOOTSTRAP_KEY, else one is generated and printed once).' },
    login: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        max_attempts: { type: 'integer', minimum: 1, default: 5, description: 'Failed logins per client address and username per window.' },
        window_seconds: { type: 'integer', minimum: 1, default: 900 },
      },
    },
  },
} as const;
