import type { AttackType, Span } from '../scanning/types.js';

/**
 * Masking of what a scan found that must not be kept: the spans of secret and PII findings are
 * replaced, in the text a scan record stores (its `input` excerpt, and so the scan detail API,
 * the dashboard and reports that read records), by the finding's type and the last characters,
 * e.g. `[AWS_KEY *****…T4P]`. The mask has the span's length, so the other findings' spans (and
 * the dashboard's highlighting of them) still point at the same characters.
 */

/** Attack types whose spans hold the sensitive value itself. */
export const MASKED_ATTACK_TYPES: ReadonlySet<AttackType> = new Set<AttackType>(['secret_exposure', 'pii_exposure']);

export interface MaskSpan extends Span {
  /** The rule that found it, e.g. `secrets.aws-access-key-id` (its type in the mask). */
  ruleId: string;
}

/** Short names for the common kinds; others are the rule's last part, upper-cased. */
const LABELS: Record<string, string> = {
  'aws-access-key-id': 'AWS_KEY',
  'aws-secret-access-key': 'AWS_SECRET',
  'github-token': 'GITHUB_TOKEN',
  'private-key': 'PRIVATE_KEY',
  'generic-assignment': 'SECRET',
};

export function maskLabel(ruleId: string): string {
  const last = ruleId.slice(ruleId.lastIndexOf('.') + 1);
  return LABELS[last] ?? (last.toUpperCase().replace(/[^A-Z0-9]+/g, '_') || 'SECRET');
}

/** The mask of one value of `len` characters: type and the last characters, exactly `len` long. */
export function maskOf(value: string, ruleId: string): string {
  const len = value.length;
  // At most 3 characters, and never more than a fifth of the value.
  const tail = value.slice(len - Math.min(3, Math.floor(len / 5)));
  const fit = (head: string): string | null => {
    const room = len - head.length - tail.length - 2; // `…` and `]`
    return room >= 0 ? `${head}${'*'.repeat(room)}…${tail}]` : null;
  };
  return fit(`[${maskLabel(ruleId)} `) ?? fit('[') ?? '*'.repeat(len);
}

/** `text` with every span masked (overlapping spans are masked as one, with the first one's type). */
export function maskText(text: string, spans: MaskSpan[]): string {
  if (spans.length === 0) return text;
  const sorted = spans
    .map((s) => ({ start: Math.max(0, s.start), end: Math.min(text.length, s.end), ruleId: s.ruleId }))
    .filter((s) => s.end > s.start)
    .sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (let i = 0; i < sorted.length; i++) {
    const s = sorted[i]!;
    if (s.end <= at) continue;
    const start = Math.max(s.start, at);
    let end = s.end;
    while (i + 1 < sorted.length && sorted[i + 1]!.start < end) end = Math.max(end, sorted[++i]!.end);
    out += text.slice(at, start) + maskOf(text.slice(start, end), s.ruleId);
    at = end;
  }
  return out + text.slice(at);
}
