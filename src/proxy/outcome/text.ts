import { normalise } from '../../scanning/normalise/index.js';

/**
 * The text forms the outcome guards compare: words and letters-only ("compact") forms that an
 * answer keeps however it is spaced, punctuated, cased, accented or line-broken, plus the
 * normaliser's views of it (look-alikes folded, s p a c e d letters joined, base64, hex, URL and
 * rot13 payloads decoded). Language-neutral: a "letter" is any Unicode letter or digit.
 */

const MARKS = /\p{M}+/gu;
const NOT_WORD = /[^\p{L}\p{N}]+/gu;

/** Lower case, accents off (NFKD then marks removed), full-width forms folded. */
export function fold(text: string): string {
  return text.normalize('NFKD').replace(MARKS, '').toLowerCase();
}

/** Words of a text, folded; a run of numbers is one word (`+49 30 5550 1234`, `08:00-18:00`),
 * so a phone number or opening hours shared with the prompt count as one word, not five. */
export function words(text: string): string[] {
  const out: string[] = [];
  let digitsRun = false;
  for (const w of fold(text).split(NOT_WORD)) {
    if (!w) continue;
    const isDigits = /^\p{N}+$/u.test(w);
    if (isDigits && digitsRun) out[out.length - 1] += ` ${w}`;
    else out.push(w);
    digitsRun = isDigits;
  }
  return out;
}

/** Scripts written without spaces, and their punctuation: they separate tokens too. */
export const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]+/gu;

/** Whitespace-separated tokens, also cut where a script without spaces starts or ends
 * (`密码是heron5521。` → `heron5521`); the CJK runs themselves are dropped. */
export function tokens(text: string): string[] {
  return text.replace(CJK, ' ').split(/\s+/).filter(Boolean);
}

/** Only the letters and digits, folded: `S-w 0.r D` → `sw0rd`. */
export function compact(text: string): string {
  return fold(text).replace(NOT_WORD, '');
}

/** Initial letters of the lines, and of the words, of a text (acrostics). */
export function initials(text: string): string[] {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/^[^\p{L}\p{N}]+/u, '')).filter(Boolean);
  const ws = text.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+/u, '')).filter(Boolean);
  return [lines.map((l) => l[0]).join(''), ws.map((w) => w[0]).join('')].map((s) => fold(s));
}

export interface AnswerViews {
  /** The original and every normaliser view's text. */
  texts: string[];
  /** The view kind of each text: original, normalised, decoded:base64, ... */
  kinds: string[];
  /** fold() of each text. */
  folded: string[];
  /** compact() of each text, and of each reversed (a value written backwards). */
  compacts: string[];
  /** Acrostic readings (first letter of each line, of each word). */
  acrostics: string[];
}

/** Decoded bytes that read as text: letters, digits, punctuation, symbols and spaces only. */
const READABLE = /^[\p{L}\p{N}\p{P}\p{S}\p{Zs}]{4,}$/u;
const SHORT_B64 = /[A-Za-z0-9+/_-]{8,}={0,2}/g;
const SHORT_HEX = /\b(?:[0-9a-fA-F]{2}){4,}\b/g;

const LONG_B64 = /[A-Za-z0-9+/]{16,}/g;
const LONG_HEX = /[0-9a-fA-F]{16,}/g;

/** Decoded bytes as text when at least 90 % of the characters read as text (a window of a
 * stream cuts a payload mid-character at both ends). */
function mostlyReadable(d: string): boolean {
  if (d.length < 8) return false;
  let bad = 0;
  for (const ch of d) if (ch === '\ufffd' || !/[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n]/u.test(ch)) bad++;
  return bad <= d.length * 0.1;
}

/**
 * Encoded tokens the normaliser leaves alone: base64 under 16 characters and hex under 8
 * bytes (a protected value is often that short), and long base64 or hex cut out of the middle
 * of a payload (a stream window starts anywhere, so the 4-character base64 groups, or hex
 * pairs, may be misaligned: every alignment is tried). Kept when the result reads as text.
 */
function extraDecodes(text: string): { kind: string; text: string }[] {
  const out: { kind: string; text: string }[] = [];
  const b64: string[] = [];
  for (const m of text.matchAll(SHORT_B64)) {
    const t = m[0].replace(/=+$/, '');
    if (t.length > 64 || !/[0-9A-Z+/]/.test(t) || !/[a-z]/.test(t)) continue;
    const d = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (READABLE.test(d) && !d.includes('\ufffd')) b64.push(d);
  }
  for (const m of text.matchAll(LONG_B64)) {
    for (let shift = 1; shift < 4; shift++) {
      const d = Buffer.from(m[0].slice(shift, shift + Math.floor((m[0].length - shift) / 4) * 4), 'base64').toString('utf8');
      if (mostlyReadable(d)) b64.push(d);
    }
  }
  if (b64.length) out.push({ kind: 'decoded:short-base64', text: b64.join('\n') });
  const hx: string[] = [];
  for (const m of text.matchAll(SHORT_HEX)) {
    const d = Buffer.from(m[0], 'hex').toString('utf8');
    if (READABLE.test(d) && !d.includes('\ufffd')) hx.push(d);
  }
  for (const m of text.matchAll(LONG_HEX)) {
    const d = Buffer.from(m[0].slice(1, 1 + Math.floor((m[0].length - 1) / 2) * 2), 'hex').toString('utf8');
    if (mostlyReadable(d)) hx.push(d);
  }
  if (hx.length) out.push({ kind: 'decoded:short-hex', text: hx.join('\n') });
  return out;
}

/** Every view of an answer text the guards look in. */
export function answerViews(text: string): AnswerViews {
  const views = [...normalise(text, 'output').views, ...extraDecodes(text)];
  const texts = views.map((v) => v.text);
  const kinds = views.map((v) => v.kind);
  const compacts: string[] = [];
  const folded = texts.map(fold);
  for (const f of folded) {
    const c = f.replace(NOT_WORD, '');
    compacts.push(c, [...c].reverse().join(''));
  }
  return { texts, kinds, folded, compacts, acrostics: initials(text) };
}
