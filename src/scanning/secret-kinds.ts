/**
 * The credential formats Warden recognises (cloud keys, API tokens, JWTs, private keys,
 * high-entropy `api_key=` assignments), shared by the secrets detector (plugins/secrets), which
 * reports them in prompts and answers, and the proxy's protected-value guard
 * (src/proxy/outcome/protected.ts), which protects the ones a system prompt holds. Vendor
 * formats are matched case-sensitively on the original text. All patterns are RE2 (linear
 * time), compiled once at module load.
 *
 * Kinds with a fixed prefix match inside longer tokens where the vendor format allows it
 * (`key: xAKIA…`, `tokenghp_…`, `xxoxb-…`, a PEM header glued to text): a word boundary is not
 * what makes them a key, and an attacker glues a letter on to slip past one. What would make
 * them look-alikes is kept out: an AWS key id inside a longer run of upper-case letters and
 * digits (a hash, base32), a Stripe-looking `disk_test_…` identifier whose body is not random.
 */
import RE2 from 're2';
import type { Severity } from './types.js';

export interface SecretKind {
  id: string;
  label: string;
  severity: Severity;
  confidence: number;
  re: RE2;
  /** Capture group holding the secret itself (for entropy and redaction); 0 = whole match. */
  group?: number;
  minEntropy?: number;
  /** A further test of the match (e.g. of a glued form), after the regex. */
  accept?: (m: RegExpExecArray) => boolean;
}

/** A digit, an upper- and a lower-case letter: a random key body, not a snake_case identifier. */
const MIXED = (s: string): boolean => /[0-9]/.test(s) && /[A-Z]/.test(s) && /[a-z]/.test(s);

const g = (p: string, flags = 'gu'): RE2 => new RE2(p, flags);

export const SECRET_KINDS: SecretKind[] = [
  { id: 'aws-access-key-id', label: 'AWS access key id', severity: 'high', confidence: 0.95, re: g('(?:^|[^0-9A-Z])((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})(?:[^0-9A-Z]|$)'), group: 1 },
  { id: 'aws-secret-access-key', label: 'AWS secret access key', severity: 'critical', confidence: 0.9, re: g('(?i:aws.{0,20}(?:secret|sk)[a-z_ -]{0,20}|secret_?access_?key)["\']?\\s*[:=]\\s*["\']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|$)'), group: 1, minEntropy: 3.5 },
  { id: 'gcp-service-account', label: 'GCP service-account key', severity: 'critical', confidence: 0.95, re: g('"type"\\s*:\\s*"service_account"[\\s\\S]{0,1000}?"private_key"\\s*:\\s*"-----BEGIN') },
  { id: 'gcp-api-key', label: 'Google API key', severity: 'high', confidence: 0.9, re: g('\\bAIza[0-9A-Za-z_-]{35}(?:[^0-9A-Za-z_-]|$)') },
  { id: 'azure-storage-key', label: 'Azure storage account key', severity: 'critical', confidence: 0.95, re: g('(?i:AccountKey)=([A-Za-z0-9+/]{80,}={0,2})'), group: 1 },
  { id: 'azure-sas-token', label: 'Azure SAS signature', severity: 'high', confidence: 0.8, re: g('[?&]sv=\\d{4}-\\d{2}-\\d{2}&[^\\s"\']{0,300}?\\bsig=([A-Za-z0-9%+/=]{40,})'), group: 1 },
  { id: 'azure-api-key', label: 'Azure / Cognitive Services key', severity: 'high', confidence: 0.8, re: g('(?i:azure[a-z_ -]{0,30}key|ocp-apim-subscription-key|azure_openai_api_key)["\']?\\s*[:=]\\s*["\']?([0-9a-fA-F]{32}|[A-Za-z0-9]{84})\\b'), group: 1 },
  { id: 'github-token', label: 'GitHub token', severity: 'high', confidence: 0.95, re: g('gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{82}') },
  { id: 'gitlab-token', label: 'GitLab token', severity: 'high', confidence: 0.95, re: g('\\bgl(?:pat|dt|ptt|rt|cbt)-[A-Za-z0-9_-]{20,}\\b') },
  { id: 'slack-token', label: 'Slack token', severity: 'high', confidence: 0.95, re: g('xox[abposr]-[A-Za-z0-9-]{10,}') },
  { id: 'slack-webhook', label: 'Slack webhook URL', severity: 'high', confidence: 0.95, re: g('https://hooks\\.slack\\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{20,}') },
  { id: 'stripe-key', label: 'Stripe secret key', severity: 'high', confidence: 0.95, re: g('([A-Za-z0-9]?)((?:sk|rk)_(?:live|test)_([A-Za-z0-9]{24,}))'), group: 2,
    // Glued to a word (`xsk_live_…`) only with a random body: `disk_test_fixturesForTheJob` is a name.
    accept: (m) => !m[1] || MIXED(m[3] ?? '') },
  { id: 'anthropic-key', label: 'Anthropic API key', severity: 'high', confidence: 0.95, re: g('\\bsk-ant-(?:api|admin)\\d{2}-[A-Za-z0-9_-]{80,}') },
  { id: 'openai-key', label: 'OpenAI API key', severity: 'high', confidence: 0.9, re: g('\\bsk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}|\\bsk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|\\bsk-[A-Za-z0-9]{48}\\b') },
  { id: 'jwt', label: 'JSON Web Token', severity: 'medium', confidence: 0.85, re: g('\\beyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}') },
  { id: 'private-key', label: 'Private key (PEM)', severity: 'critical', confidence: 0.98, re: g('-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----') },
  {
    id: 'generic-assignment', label: 'High-entropy secret assignment', severity: 'medium', confidence: 0.6,
    re: g('(?i:\\b(?:api[_-]?key|apikey|api[_-]?secret|secret[_-]?key|client[_-]?secret|access[_-]?token|auth[_-]?token|bearer|private[_-]?key|password|passwd|secret|token))["\']?\\s*(?:[:=]|=>|\\s)\\s*["\']?([A-Za-z0-9_\\-+/=.~]{16,200})'),
    group: 1, minEntropy: 3.6,
  },
];

/**
 * One RE2.Set pass over the text names the kinds that may be present; only those run their
 * own regex (which gives positions and groups). Most texts hold no secret, so the common cost
 * is one UTF-8 conversion and one linear pass instead of one per kind.
 */
const PREFILTER = new RE2.Set(SECRET_KINDS.map((k) => k.re.source), 'u');

/**
 * The gate before the prefilter set: every kind needs one of
 *  - a run of at least 15 characters of [A-Za-z0-9_\-+/=.~] (the union of the kinds' token
 *    alphabets; the shortest run is a Slack token "xoxb-" + 10, a generic assignment needs 16,
 *    a service-account key quotes "service_account", the others are 20 to 80+ long), or
 *  - "-----BEGIN" (PEM private keys), or "?sv=" / "&sv=" (an Azure SAS signature may be
 *    percent-encoded, which breaks its run).
 * Most texts hold neither, and proving that costs less than the set's UTF-8 copy alone.
 */
const RUN = 15;
const TOKEN_BYTE = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+/=.~') TOKEN_BYTE[c.charCodeAt(0)] = 1;

/**
 * Whether bytes[0..n) hold RUN token characters in a row. Reads each window of RUN from its
 * end backwards: the first other byte found rules out every window that contains it, so the
 * next window starts after it. In prose (a space every few characters) about one byte in three
 * is read. UTF-8, because per-character reads of a string cost several times more (and vary
 * with the string's representation); a non-ASCII character is bytes >= 0x80, which end a run
 * as the character does.
 */
export function hasTokenRun(bytes: Uint8Array, n: number): boolean {
  let p = 0;
  while (p + RUN <= n) {
    let q = p + RUN - 1;
    while (q >= p && TOKEN_BYTE[bytes[q]!] === 1) q--;
    if (q < p) return true;
    p = q + 1;
  }
  return false;
}

/** Texts up to this many UTF-16 units are gated (in a scratch buffer of 3 bytes per unit). */
const MAX_GATED = 1 << 16;
let scratch = Buffer.allocUnsafeSlow(16 * 1024);
const UTF8 = new TextEncoder();

/**
 * The text's UTF-8 when a kind may match it (a view of a scratch buffer, valid until the next
 * call; undefined for texts too long to gate), or null when no kind can match it.
 */
function gate(text: string): Buffer | null | undefined {
  if (text.length > MAX_GATED) return undefined;
  if (3 * text.length > scratch.length) scratch = Buffer.allocUnsafeSlow(3 * text.length);
  const n = UTF8.encodeInto(text, scratch).written;
  if (hasTokenRun(scratch, n) || text.includes('-----BEGIN') || text.includes('&sv=') || text.includes('?sv=')) return scratch.subarray(0, n);
  return null;
}

/** False when no kind can match `text`. */
export function secretsGate(text: string): boolean {
  return gate(text) !== null;
}

/**
 * The indices in SECRET_KINDS of the kinds whose pattern matches somewhere in `text` (the gate,
 * then one RE2.Set pass); only those can give a match. `utf8`: the text's UTF-8, asked for only
 * when the text is too long to gate.
 */
export function secretKindsIn(text: string, utf8?: () => Buffer | undefined): number[] {
  const bytes = gate(text);
  if (bytes === null) return [];
  return PREFILTER.match(bytes ?? utf8?.() ?? text);
}
