import { WardenError, type ErrorType } from '../errors.js';

/**
 * Why an upstream call failed. `retryable` failures (connection refused or reset, 5xx,
 * time-outs) may be retried and failed over; a 4xx is the client's problem and never is.
 */
export type UpstreamFailure =
  | 'connect'
  | 'timeout'
  | 'status_5xx'
  | 'status_4xx'
  | 'bad_response'
  | 'too_large'
  | 'auth'
  | 'aborted';

export class UpstreamError extends WardenError {
  readonly failure: UpstreamFailure;
  readonly retryable: boolean;
  readonly provider: string;
  readonly upstreamStatus: number | null;
  /** The part of `message` the provider wrote (it may carry anything: it is scanned before a client sees it). */
  readonly providerText: string | null;

  constructor(
    provider: string,
    failure: UpstreamFailure,
    status: number,
    type: ErrorType,
    message: string,
    opts: { code: string; upstreamStatus?: number; headers?: Record<string, string>; param?: string; extra?: Record<string, unknown>; providerText?: string },
  ) {
    super(status, type, message, { code: opts.code, headers: opts.headers, param: opts.param, extra: opts.extra });
    this.name = 'UpstreamError';
    this.failure = failure;
    this.provider = provider;
    this.upstreamStatus = opts.upstreamStatus ?? null;
    this.providerText = opts.providerText || null;
    this.retryable = failure === 'connect' || failure === 'timeout' || failure === 'status_5xx';
  }

  /** The message without the provider's own text: what provider health keeps and shows (it is not scanned there). */
  get summary(): string {
    return this.providerText ? this.message.split(this.providerText).join('[provider text not kept]') : this.message;
  }
}

export const upstreamConnectError = (provider: string) =>
  new UpstreamError(provider, 'connect', 502, 'upstream_error', `Provider "${provider}" could not be reached.`, {
    code: 'upstream_unreachable',
  });

export const upstreamTimeout = (provider: string, what: string) =>
  new UpstreamError(provider, 'timeout', 504, 'upstream_error', `Provider "${provider}" timed out (${what}).`, {
    code: 'upstream_timeout',
  });

export const upstreamBadResponse = (provider: string, detail: string) =>
  new UpstreamError(provider, 'bad_response', 502, 'upstream_error', `Provider "${provider}" sent an invalid response: ${detail}.`, {
    code: 'upstream_bad_response',
  });

/** An answer within max_response_bytes but longer than the scanner takes in one piece: it cannot be
 * scanned, so it is withheld (`reason` is the scanner's own words, which name the limit). */
export const upstreamAnswerTooLong = (provider: string, reason: string) =>
  new UpstreamError(
    provider,
    'too_large',
    502,
    'upstream_error',
    `Provider "${provider}" answered with more text than Warden scans in one piece (${reason}); the answer was withheld. Streamed with stream_mode incremental, an answer is scanned window by window.`,
    { code: 'upstream_response_too_large' },
  );

export const upstreamTooLarge = (provider: string, limit: number) =>
  new UpstreamError(provider, 'too_large', 502, 'upstream_error', `Provider "${provider}" sent a response larger than ${limit} bytes; it was cut off.`, {
    code: 'upstream_response_too_large',
  });

export const upstreamAborted = (provider: string) =>
  new UpstreamError(provider, 'aborted', 499, 'api_error', 'The client went away; the upstream request was cancelled.', {
    code: 'client_closed_request',
  });

/**
 * An upstream error whose text carried a finding (a credential, PII, an injection, ...) in place
 * of the provider's text: the same status, failure and headers (a 429 keeps its Retry-After),
 * type `upstream_error`, and the scan that found it (its record holds the text, masked).
 */
export function upstreamErrorWithheld(err: UpstreamError, scanIds: string[], threatIds: string[]): UpstreamError {
  const what = err.upstreamStatus ? ` (HTTP ${err.upstreamStatus})` : '';
  return new UpstreamError(
    err.provider,
    err.failure,
    err.status,
    'upstream_error',
    `Provider "${err.provider}" answered with an error${what} whose text was withheld by a security policy; see scan ${scanIds.join(', ')} for what was found.`,
    { code: 'upstream_error_withheld', upstreamStatus: err.upstreamStatus ?? undefined, headers: err.headers, extra: { scan_ids: scanIds, threat_ids: threatIds } },
  );
}

const STATUS_TYPES: Record<number, ErrorType> = {
  400: 'invalid_request_error',
  404: 'not_found_error',
  409: 'invalid_request_error',
  413: 'request_too_large',
  422: 'invalid_request_error',
  429: 'rate_limit_error',
};

/** Longest upstream message we pass on; the rest is noise or, worse, an echo of our request. */
const MAX_MESSAGE = 500;

/**
 * Strips anything credential-like from an upstream message: the provider's own key verbatim,
 * `sk-...`/`sk-ant-...` style keys, bearer tokens and `api-key=...` pairs. Upstreams sometimes
 * echo a (partial) key back in a 401 body; Warden's clients must never see it.
 */
export function sanitiseUpstreamMessage(message: string, secrets: (string | undefined)[]): string {
  let out = message;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  out = out
    .replace(/\b(sk|rk|pk)-[A-Za-z0-9_\-*]{6,}/g, '[redacted]')
    .replace(/\bBearer\s+[A-Za-z0-9._~+/=\-*]+/gi, 'Bearer [redacted]')
    .replace(/(api[-_ ]?key["'\s:=]+)[^\s"',}]+/gi, '$1[redacted]')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .trim();
  if (out.length > MAX_MESSAGE) out = `${out.slice(0, MAX_MESSAGE)}…`;
  return out;
}

/** Pulls a human message out of an OpenAI-, Azure- or Anthropic-shaped error body. */
export function extractUpstreamMessage(bodyText: string): string {
  try {
    const parsed = JSON.parse(bodyText) as { error?: { message?: unknown } | string; message?: unknown };
    if (parsed && typeof parsed.error === 'object' && typeof parsed.error?.message === 'string') return parsed.error.message;
    if (typeof parsed?.error === 'string') return parsed.error;
    if (typeof parsed?.message === 'string') return parsed.message;
  } catch {
    /* not JSON: fall through to the raw text */
  }
  return bodyText;
}

/**
 * An upstream non-2xx answer in Warden's terms. 4xx passes through with the same status and a
 * sanitised message, except 401/403: those concern Warden's own upstream credential, not the
 * caller's, so they become a 502 (the caller cannot fix them, and a 401 would make SDKs blame
 * the caller's key). 5xx becomes a retryable 502.
 */
export function upstreamStatusError(
  provider: string,
  status: number,
  bodyText: string,
  secrets: (string | undefined)[],
  retryAfter?: string | null,
): UpstreamError {
  const message = sanitiseUpstreamMessage(extractUpstreamMessage(bodyText), secrets) || `HTTP ${status}`;
  if (status === 401 || status === 403) {
    return new UpstreamError(provider, 'auth', 502, 'upstream_error', `Provider "${provider}" rejected Warden's credential (HTTP ${status}).`, {
      code: 'upstream_auth_failed',
      upstreamStatus: status,
    });
  }
  if (status >= 400 && status < 500) {
    const headers: Record<string, string> = {};
    if (status === 429 && retryAfter && /^\d+$/.test(retryAfter)) headers['Retry-After'] = retryAfter;
    return new UpstreamError(provider, 'status_4xx', status, STATUS_TYPES[status] ?? 'invalid_request_error', message, {
      code: `upstream_${status}`,
      upstreamStatus: status,
      headers,
      providerText: message,
    });
  }
  return new UpstreamError(provider, 'status_5xx', 502, 'upstream_error', `Provider "${provider}" failed (HTTP ${status}): ${message}`, {
    code: 'upstream_failed',
    upstreamStatus: status,
    providerText: message,
  });
}
