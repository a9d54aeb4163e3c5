import { pino } from 'pino';

/** Structured JSON logs on stderr. Level from WARDEN_LOG_LEVEL (default info; tests use warn). */
export const log = pino({
  name: 'warden',
  level: process.env.WARDEN_LOG_LEVEL ?? 'info',
  redact: {
    paths: ['*.api_key', '*.apiKey', '*.authorization', '*.password', '*.secret', 'headers.authorization', 'headers["x-api-key"]', 'headers.cookie'],
    censor: '[redacted]',
  },
}, pino.destination(2));

export type Logger = typeof log;
