import type { Span } from '../scanning/types.js';

/**
 * Typed placeholders for redacted values (`[EMAIL_1]`, `[IBAN_2]`, `[SECRET_1]`): one vault per
 * request maps each distinct value to its placeholder and back. The vault lives in memory for
 * the request only; nothing here logs, stores or sends a value.
 */

/** `pii.email` → EMAIL, `pii.iban` → IBAN; any secret → SECRET (its kind stays out of the text). */
export function placeholderKind(ruleId: string, attackType: string): string {
  if (attackType === 'secret_exposure' || ruleId.startsWith('secrets.')) return 'SECRET';
  const dot = ruleId.indexOf('.');
  const kind = (dot >= 0 ? ruleId.slice(dot + 1) : ruleId).toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  return kind || 'REDACTED';
}

/** `[KIND_N]`; KIND is upper-case letters, digits and `_`. */
export const PLACEHOLDER = /\[([A-Z][A-Z0-9_]*)_(\d{1,6})\]/g;
/** The longest placeholder a vault makes (a held-back stream tail is never longer). */
export const MAX_PLACEHOLDER_CHARS = 48;

export class PlaceholderVault {
  private readonly byValue = new Map<string, string>();
  private readonly byPlaceholder = new Map<string, string>();
  private readonly counters = new Map<string, number>();

  /** `taken`: placeholders the text already holds as written (a user typing "[EMAIL_1]"); never handed out, so never restored. */
  constructor(private readonly taken: ReadonlySet<string> = new Set()) {}

  get size(): number {
    return this.byValue.size;
  }

  /** The placeholder of a value: the same value gets the same placeholder every time. */
  placeholderFor(kind: string, value: string): string {
    const known = this.byValue.get(value);
    if (known !== undefined) return known;
    const k = kind.slice(0, 30);
    let n = this.counters.get(k) ?? 0;
    let p: string;
    do p = `[${k}_${++n}]`;
    while (this.taken.has(p));
    this.counters.set(k, n);
    this.byValue.set(value, p);
    this.byPlaceholder.set(p, value);
    return p;
  }

  /** The distinct values, longest first (so a value inside another is replaced after it). */
  values(): string[] {
    return [...this.byValue.keys()].sort((a, b) => b.length - a.length);
  }

  /** Puts back every placeholder this vault made; unknown ones are left as they are. */
  restore(text: string): string {
    if (this.byPlaceholder.size === 0 || text.indexOf('[') < 0) return text;
    return text.replace(PLACEHOLDER, (m) => this.byPlaceholder.get(m) ?? m);
  }
}

/** `text` with each span replaced by the placeholder of its value (spans sorted, not overlapping). */
export function redactSpans(text: string, spans: readonly (Span & { kind: string })[], vault: PlaceholderVault): string {
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.start < at || s.end > text.length) continue;
    out += text.slice(at, s.start) + vault.placeholderFor(s.kind, text.slice(s.start, s.end));
    at = s.end;
  }
  return out + text.slice(at);
}

/**
 * Every occurrence of the vault's values in `text` replaced by their placeholders (values found
 * by a scan of one field may appear in others: each is replaced wherever it is).
 */
export function redactValues(text: string, vault: PlaceholderVault, values = vault.values()): string {
  let out = text;
  for (const v of values) {
    if (v.length === 0 || out.indexOf(v) < 0) continue;
    out = out.split(v).join(vault.placeholderFor('', v));
  }
  return out;
}
