/**
 * pii: personal data in model output (and, for the high-risk kinds, in prompts): payment card
 * numbers that pass the Luhn check, IBANs that pass ISO 13616 mod-97, e-mail addresses and
 * phone numbers (E.164 and common national formats).
 *
 * Why prompts get fewer kinds by default: a user pasting their own e-mail address or phone
 * number into a prompt is ordinary; the same data appearing in a model's answer is a leak.
 * Card numbers and IBANs are reported everywhere. Both lists are configurable.
 */
import RE2 from 're2';
import type { DetectorPlugin, Finding, NormalisedInput, Severity, Span } from '../../src/scanning/types.js';

export type PiiKind = 'card' | 'iban' | 'email' | 'phone';

const CARD = new RE2('(?:^|[^0-9])((?:\\d[ -]?){12,18}\\d)(?:[^0-9]|$)', 'gu');
const IBAN = new RE2('\\b([A-Z]{2}\\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)\\b', 'gu');
const EMAIL = new RE2('\\b[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\\.){1,8}[A-Za-z]{2,24}\\b', 'gu');
// E.164 (+ and 8-15 digits, separators allowed) or a national number with area-code shape.
const PHONE = new RE2('(?:^|[^\\w+])((?:\\+\\d{1,3}[ .-]?)?(?:\\(\\d{2,4}\\)[ .-]?|\\d{2,4}[ .-])\\d{3,4}[ .-]\\d{3,4}|\\+\\d{8,15})(?:[^\\w]|$)', 'gu');

/** RFC 2606 / 6761 reserved names: documentation addresses, never anyone's data. */
const RESERVED_DOMAIN = new RE2('@(?:[a-z0-9-]+\\.)*(?:example\\.(?:com|org|net)|example|test|invalid|localhost)$', 'i');

/** Luhn (mod 10) over the digits of s. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
    double = !double;
  }
  return digits.length >= 13 && sum % 10 === 0;
}

/** Issuer prefixes that real card numbers start with (Visa, Mastercard, Amex, Discover, JCB, UnionPay, Diners, Maestro). */
function plausibleCard(digits: string): boolean {
  if (/^(\d)\1+$/.test(digits)) return false;
  return /^(4|5[1-5]|2[2-7]|3[47]|6(?:011|5|4[4-9]|2)|35|30[0-5]|36|38|5[06-8]|6[37])/.test(digits) && digits.length >= 13 && digits.length <= 19;
}

const IBAN_LENGTHS: Record<string, number> = {
  AD: 24, AE: 23, AT: 20, BE: 16, BG: 22, CH: 21, CY: 28, CZ: 24, DE: 22, DK: 18, EE: 20, ES: 24, FI: 18, FR: 27,
  GB: 22, GR: 27, HR: 21, HU: 28, IE: 22, IS: 26, IT: 27, LI: 21, LT: 20, LU: 20, LV: 21, MC: 27, MT: 31, NL: 18,
  NO: 15, PL: 28, PT: 25, RO: 24, SA: 24, SE: 24, SI: 19, SK: 24, SM: 27, TR: 26, UA: 29,
};

/** ISO 13616: move the first four characters to the end, letters to numbers, mod 97 == 1. */
export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/ /g, '');
  const expected = IBAN_LENGTHS[iban.slice(0, 2)];
  if (expected === undefined || iban.length !== expected) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of moved) {
    const code = ch.charCodeAt(0);
    const val = code >= 65 ? String(code - 55) : ch;
    for (const d of val) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

interface KindSpec { severity: Severity; confidence: number; label: string }
const KIND_SPEC: Record<PiiKind, KindSpec> = {
  card: { severity: 'high', confidence: 0.9, label: 'payment card number (Luhn-valid)' },
  iban: { severity: 'high', confidence: 0.9, label: 'IBAN (checksum-valid)' },
  email: { severity: 'low', confidence: 0.9, label: 'e-mail address' },
  phone: { severity: 'low', confidence: 0.6, label: 'phone number' },
};

function collect(re: RE2, text: string, group: number, accept: (s: string) => boolean, max: number): Span[] {
  const spans: Span[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m && spans.length < max; m = re.exec(text)) {
    const value = m[group] ?? m[0];
    const start = m.index + m[0].indexOf(value);
    if (accept(value)) spans.push({ start, end: start + value.length });
    // Separator-delimited patterns consume the delimiter; step back so adjacent values match.
    if (re.lastIndex > 0 && group > 0) re.lastIndex = Math.max(start + value.length, m.index + 1);
  }
  return spans;
}

/** One cheap pass: what the text could possibly contain, so most texts skip the regexes. */
function shape(text: string): { digits: number; at: boolean; ibanStart: boolean } {
  let digits = 0;
  let at = false;
  let ibanStart = false;
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    if (u >= 48 && u <= 57) {
      digits++;
      // Two capitals then two digits: how every IBAN begins.
      if (!ibanStart && i >= 3) {
        const a = text.charCodeAt(i - 3), b = text.charCodeAt(i - 2), c = text.charCodeAt(i - 1);
        ibanStart = a >= 65 && a <= 90 && b >= 65 && b <= 90 && c >= 48 && c <= 57;
      }
    } else if (u === 64) at = true;
  }
  return { digits, at, ibanStart };
}

export function findPii(text: string, kinds: ReadonlySet<PiiKind>, max = 50): Map<PiiKind, Span[]> {
  const out = new Map<PiiKind, Span[]>();
  const s = shape(text);
  kinds = new Set([...kinds].filter((k) => (k === 'card' ? s.digits >= 13 : k === 'iban' ? s.ibanStart : k === 'email' ? s.at : s.digits >= 8)));
  const cards = kinds.has('card') ? collect(CARD, text, 1, (v) => { const d = v.replace(/[ -]/g, ''); return plausibleCard(d) && luhnValid(d); }, max) : [];
  if (cards.length) out.set('card', cards);
  if (kinds.has('iban')) { const s = collect(IBAN, text, 1, ibanValid, max); if (s.length) out.set('iban', s); }
  if (kinds.has('email')) { const s = collect(EMAIL, text, 0, (v) => !RESERVED_DOMAIN.test(v), max); if (s.length) out.set('email', s); }
  if (kinds.has('phone')) {
    const inCard = (s: Span): boolean => cards.some((c) => c.start <= s.start && s.end <= c.end);
    // A phone-shaped piece of a longer digit group (card, IBAN, account number) is not a phone.
    const isSep = (c: string | undefined): boolean => c === ' ' || c === '.' || c === '-';
    const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';
    const partOfLonger = (sp: Span): boolean => (isSep(text[sp.end]) && isDigit(text[sp.end + 1])) || (isSep(text[sp.start - 1]) && /[0-9A-Z]/.test(text[sp.start - 2] ?? ''));
    const s = collect(PHONE, text, 1, (v) => { const d = v.replace(/\D/g, ''); return d.length >= 8 && d.length <= 15 && !/^(\d)\1+$/.test(d) && !/^(19|20)\d{2}[ .-]\d{2}[ .-]\d{2}$/.test(v.trim()); }, max).filter((sp) => !inCard(sp) && !partOfLonger(sp));
    if (s.length) out.set('phone', s);
  }
  return out;
}

const plugin: DetectorPlugin = {
  meta: {
    name: 'pii',
    version: '1.0.0',
    description: 'Payment cards (Luhn), IBANs (mod 97), e-mail addresses and phone numbers.',
    targets: ['prompt', 'output'],
    defaultConfig: { prompt_kinds: ['card', 'iban'], output_kinds: ['card', 'iban', 'email', 'phone'], max_spans: 50 },
  },
  scan(input: NormalisedInput, ctx): Finding[] {
    const key = input.target === 'output' ? 'output_kinds' : 'prompt_kinds';
    const kinds = new Set(((ctx.config[key] as PiiKind[] | undefined) ?? []));
    if (kinds.size === 0) return [];
    const found = findPii(input.original, kinds, Number(ctx.config.max_spans ?? 50));
    const findings: Finding[] = [];
    for (const [kind, spans] of found) {
      const spec = KIND_SPEC[kind];
      findings.push({
        attackType: 'pii_exposure', severity: spec.severity, confidence: spec.confidence,
        ruleId: `pii.${kind}`, message: `${spans.length} ${spec.label}${spans.length > 1 ? 's' : ''} found`, spans,
      });
    }
    return findings;
  },
};

export default plugin;
