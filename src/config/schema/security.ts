const severity = { enum: ['low', 'medium', 'high', 'critical'] } as const;

export const securitySchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    rate_limit: { type: 'integer', minimum: 1, maximum: 1000000, default: 60, description: 'Requests per minute per credential.' },
    rate_limit_fail_mode: { enum: ['open', 'closed'], default: 'open', description: 'What rate limiting does when Redis is unreachable.' },
    mode: { enum: ['enforce', 'monitor'], default: 'enforce', description: 'monitor scans and records everything and blocks nothing.' },
    block_severity: { ...severity, default: 'high', description: 'Lowest severity that blocks.' },
    fail_mode: { enum: ['closed', 'open'], default: 'closed', description: 'What a detector error or scan time-out does.' },
    scan_timeout_ms: { type: 'integer', minimum: 1, maximum: 60000, default: 2000 },
    block_response: { enum: ['error', 'refusal'], default: 'error', description: 'Blocked chat request: 400 security_violation, or a refusal completion.' },
    stream_mode: { enum: ['buffer', 'incremental'], default: 'incremental', description: 'How streamed model output is scanned before release.' },
    stream_chunk_chars: { type: 'integer', minimum: 16, maximum: 65536, default: 384, description: 'incremental: release streamed text once this many characters wait (scanned first).' },
    stream_overlap_chars: { type: 'integer', minimum: 0, maximum: 16384, default: 128, description: 'incremental: characters held back and rescanned with the next window (longer than any secret to catch).' },
    canary: { type: 'boolean', default: false, description: 'Plant a canary token in the system prompt and block outputs that leak it.' },
    input: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        scan_system_turns: { type: 'boolean', default: false, description: 'Scan system and developer turns as prompts too (they are the application\'s own by default: see docs/proxy.md).' },
        undecodable_content: {
          enum: ['block', 'flag'],
          default: 'block',
          description: 'A data: URL or file part payload that cannot be read as text (not UTF-8, Latin-1 or UTF-16, compressed or not, nor an image or audio): block answers 400 undecodable_content; flag forwards it with an undecodable_content finding (low) in the scan record. See docs/proxy.md.',
        },
      },
    },
    output: {
      type: 'object',
      additionalProperties: false,
      default: {},
      properties: {
        link_allowlist: {
          type: 'array',
          default: [],
          maxItems: 1000,
          items: { type: 'string', minLength: 1, maxLength: 253, pattern: '^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*\\.?$' },
          description: 'Hosts (example.com, or *.example.com for its subdomains) whose image and link URLs in model output may carry data; any other host with 24+ characters of encoded or conversation data in its URL is a data_exfiltration finding.',
        },
      },
    },
  },
} as const;
