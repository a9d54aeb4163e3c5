/**
 * The personal-data formats Warden recognises by their shape and check digits: payment card
 * numbers that pass the Luhn check (in card groupings, with an issuer prefix), IBANs that pass
 * ISO 13616 mod 97 at their country's length, e-mail addresses and phone numbers (E.164 and
 * common national formats). Shared by the pii detector (plugins/pii), which reports them, and
 * the classifier (plugins/classifier/numbers.ts), which does not read the account, card and
 * phone numbers it finds: such runs of digits are data, not language. Patterns are RE2
 * (linear time), compiled once at module load, matched on the original text.
 */
import RE2 from 're2';
import type { Span } from './types.js';

export type PiiKind = 'card' | 'iban' | 'email' | 'phone';

// Not glued to letters: digits inside a hex hash, a UUID or a base64 blob are not a card.
const CARD = new RE2('(?:^|[^0-9A-Za-z])((?:\\d[ -]?){12,18}\\d)(?:[^0-9A-Za-z]|$)', 'gu');
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

/**
 * Card numbers are written whole or in even groups (4-4-4-4, 4-4-4-4-3, 4-4-5, one digit at a time),
 * or in the issuers' uneven ones: 4-6-5 (Amex), 4-6-4 (Diners). A run of numbers of mixed
 * lengths separated by spaces ("492 5 4 264 13 936") is a list, not a card.
 */
export function cardGrouping(value: string): boolean {
  const groups = value.split(/[ -]/).map((g) => g.length);
  if (groups.length === 1) return true;
  // Two long numbers side by side ("1063606 6423197") are two numbers.
  // Pairs ("6f 59 15 f3 75 a4 ...", a hex dump) are bytes, not card groups.
  if (groups.length === 2 || groups[0]! > 6 || groups[0] === 2) return false;
  if (groups.length === 3 && groups[0] === 4 && groups[1] === 6 && (groups[2] === 4 || groups[2] === 5)) return true;
  for (let i = 1; i < groups.length - 1; i++) if (groups[i] !== groups[0]) return false;
  // The last group may run short (4-4-4-4-3) or a little long (4-4-5).
  return groups[groups.length - 1]! <= groups[0]! + 2;
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

const KIND_BIT: Record<PiiKind, number> = { card: 1, iban: 2, email: 4, phone: 8 };
const { card: CARD_BIT, iban: IBAN_BIT, email: EMAIL_BIT, phone: PHONE_BIT } = KIND_BIT;

/**
 * Gates: one JS RegExp per kind, each a NECESSARY condition of that kind's RE2 pattern, so a
 * text that fails a gate cannot produce a finding of that kind and its regex is not run. They
 * are fixed-length (or unrolled) so V8 can skip ahead on the rare characters (digits), and
 * backtrack at most a constant number of steps per start position (linear time).
 *  - card: 13 digits, each pair separated by at most one space or hyphen (CARD needs 13-19);
 *  - IBAN: two capitals, two digits, then two groups of four (IBAN needs at least two);
 *  - e-mail: an '@';
 *  - phone: three digits, a separator, three digits (every national form has that in its
 *    `\d{3,4}[ .-]\d{3,4}` tail) or '+' and eight digits (E.164).
 * Measured on the bench corpus: 7, 0, 202 and 8 of 2,800 texts pass them.
 */
const CARD_GATE = /\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d[ -]?\d/;
const IBAN_GATE = /[A-Z]{2}\d\d ?[A-Z0-9]{4} ?[A-Z0-9]{4}/;
const PHONE_GATE = /\d{3}[ .-]\d{3}|\+\d{8}/;
const TWO_DIGITS = /\d\d/;

/** Each kind's RE2 pattern, for tests that check the gates against them. */
export const PII_PATTERNS: Readonly<Record<PiiKind, RE2>> = { card: CARD, iban: IBAN, email: EMAIL, phone: PHONE };
export const PII_KIND_BITS: Readonly<Record<PiiKind, number>> = KIND_BIT;

/** The kinds (as bits) whose gate this text passes. */
export function piiGates(text: string, kinds: number): number {
  let pass = 0;
  if (kinds & CARD_BIT && CARD_GATE.test(text)) pass |= CARD_BIT;
  if (kinds & EMAIL_BIT && text.includes('@')) pass |= EMAIL_BIT;
  // Both need two digits in a row; most texts have none, and this is the cheapest test.
  if (kinds & (IBAN_BIT | PHONE_BIT) && TWO_DIGITS.test(text)) {
    if (kinds & IBAN_BIT && IBAN_GATE.test(text)) pass |= IBAN_BIT;
    if (kinds & PHONE_BIT && PHONE_GATE.test(text)) pass |= PHONE_BIT;
  }
  return pass;
}

export function kindBits(kinds: Iterable<string>): number {
  let bits = 0;
  for (const k of kinds) bits |= KIND_BIT[k as PiiKind] ?? 0;
  return bits;
}

export function findPii(text: string, kinds: ReadonlySet<PiiKind>, max = 50): Map<PiiKind, Span[]> {
  return findPiiKinds(text, kindBits(kinds), max) ?? new Map();
}

/** null: no gate passed (the common case: nothing allocated). */
export function findPiiKinds(text: string, kindSet: number, max: number): Map<PiiKind, Span[]> | null {
  const kinds = piiGates(text, kindSet);
  if (kinds === 0) return null;
  const out = new Map<PiiKind, Span[]>();
  const cards = kinds & CARD_BIT ? collect(CARD, text, 1, (v) => { const d = v.replace(/[ -]/g, ''); return cardGrouping(v) && plausibleCard(d) && luhnValid(d); }, max) : [];
  if (cards.length) out.set('card', cards);
  if (kinds & IBAN_BIT) { const s = collect(IBAN, text, 1, ibanValid, max); if (s.length) out.set('iban', s); }
  if (kinds & EMAIL_BIT) { const s = collect(EMAIL, text, 0, (v) => !RESERVED_DOMAIN.test(v), max); if (s.length) out.set('email', s); }
  if (kinds & PHONE_BIT) {
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
