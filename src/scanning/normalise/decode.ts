/**
 * Decoders for payloads hidden in encodings: base64 (and base64url), hex (contiguous, `\xHH`
 * escapes, or space-separated byte pairs) and URL percent-encoding. Each returns the decoded
 * payloads of one kind joined by newlines, with every decoded character mapped back to the
 * encoded characters that produced it. Only payloads that decode to valid UTF-8 that is mostly
 * printable text are kept: hashes, keys and binary blobs decode to noise and are dropped.
 *
 * These are plain JS RegExps on purpose: they find encodings, not threats. Rule patterns are
 * compiled with RE2 only (src/scanning/rules).
 */
import { isUtf8 } from 'node:buffer';
import { MappedTextBuilder } from './mapped.js';

const MAX_CANDIDATES = 256;
const MIN_DECODED_CHARS = 4;
const utf8 = new TextDecoder('utf-8');

export interface DecodeResult {
  builder: MappedTextBuilder;
  payloads: number;
}

/** Accepts text that is at least 85% printable and carries some letters (letters and digits at least 30 %). */
export function mostlyPrintable(s: string): boolean {
  if (s.length < MIN_DECODED_CHARS) return false;
  let bad = 0;
  let letters = 0;
  let digits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || (c >= 0x7f && c < 0xa0) || c === 0xfffd) bad++;
    else if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0xc0) letters++;
    else if (c >= 48 && c <= 57) digits++;
  }
  // Digits count with letters for the share: a payload that is itself an encoding (hex, %HH,
  // &#73;, \u0049) is mostly digits, and is decoded again.
  return bad <= s.length * 0.15 && (letters >= 2 || digits >= 8) && letters + digits >= s.length * 0.3;
}

/**
 * Appends the UTF-8 `bytes` to `out` if they decode to printable text; byte k was produced
 * by source range [byteStart[k], byteEnd[k]).
 */
function appendDecoded(out: MappedTextBuilder, bytes: Uint8Array, byteStart: Int32Array, byteEnd: Int32Array, budget: { chars: number }): boolean {
  // Cheap reject before a UTF-8 decode: binary noise is full of control bytes.
  let control = 0;
  for (let k = 0; k < bytes.length; k++) {
    const c = bytes[k]!;
    if ((c < 32 && c !== 9 && c !== 10 && c !== 13) || c === 0x7f) control++;
  }
  // Native validity check: most non-payload candidates fail here, and a throwing fatal
  // decoder made every failure an exception (measured as a visible share of normalise time).
  if (control > bytes.length * 0.15 || !isUtf8(bytes)) return false;
  let text = utf8.decode(bytes);
  if (!mostlyPrintable(text) || budget.chars <= 0) return false;
  // Over the budget: keep the head rather than skip it, so padding cannot buy invisibility.
  if (text.length > budget.chars) text = text.slice(0, budget.chars);
  budget.chars -= text.length;
  if (out.length > 0) out.push(10, byteStart[0]!, byteStart[0]!); // newline between payloads
  let b = 0;
  for (let i = 0; i < text.length; i++) {
    const cp = text.codePointAt(i)!;
    const width = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    const start = byteStart[b]!;
    const end = byteEnd[b + width - 1]!;
    out.push(text.charCodeAt(i), start, end);
    if (cp > 0xffff) out.push(text.charCodeAt(++i), start, end);
    b += width;
  }
  return true;
}

const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_ONLY = /^[0-9a-fA-F]+$/;
/** Base64 of text mixes digits or upper case with lower case; long words and paths do not.
 * Two single-class tests, each linear (one regex with `.*` between them was quadratic on a
 * long single-case run). */
const MIXED_A = /[0-9A-Z+/]/;
const MIXED_B = /[a-z]/;

export function decodeBase64(text: string, budget: { chars: number }): DecodeResult | null {
  const out = new MappedTextBuilder(0);
  let payloads = 0;
  let seen = 0;
  BASE64_RUN.lastIndex = 0;
  for (let m = BASE64_RUN.exec(text); m !== null && seen < MAX_CANDIDATES; m = BASE64_RUN.exec(text)) {
    seen++;
    const token = m[0].replace(/=+$/, '');
    if (HEX_ONLY.test(token) || !(MIXED_A.test(token) && MIXED_B.test(token))) continue; // hex has its own decoder; plain words are not base64
    const usable = token.length - (token.length % 4 === 1 ? 1 : 0);
    const bytes = Buffer.from(token.slice(0, usable), 'base64');
    if (bytes.length === 0) continue;
    const starts = new Int32Array(bytes.length);
    const ends = new Int32Array(bytes.length);
    for (let k = 0; k < bytes.length; k++) {
      // Byte k holds bits [8k, 8k+8) of the stream; each base64 character carries 6 bits.
      starts[k] = m.index + Math.floor((8 * k) / 6);
      ends[k] = m.index + Math.min(usable, Math.ceil((8 * k + 8) / 6));
    }
    if (appendDecoded(out, bytes, starts, ends, budget)) payloads++;
  }
  return payloads > 0 ? { builder: out, payloads } : null;
}

const HEX_RUN = /(?:\\x[0-9a-fA-F]{2}){4,}|\b[0-9a-fA-F]{2}(?:[ :,]?[0-9a-fA-F]{2}){7,}\b/g;

export function decodeHex(text: string, budget: { chars: number }): DecodeResult | null {
  const out = new MappedTextBuilder(0);
  let payloads = 0;
  let seen = 0;
  HEX_RUN.lastIndex = 0;
  for (let m = HEX_RUN.exec(text); m !== null && seen < MAX_CANDIDATES; m = HEX_RUN.exec(text)) {
    seen++;
    const token = m[0];
    // Typed arrays and nibble arithmetic: a run can be a megabyte of hex-looking letters
    // ("bbbb..."), and a parseInt and two array pushes per pair made that 0.3 s.
    const bytes = new Uint8Array(token.length >> 1);
    const s = new Int32Array(bytes.length);
    const e = new Int32Array(bytes.length);
    let k = 0;
    for (let i = 0; i < token.length; ) {
      const c = token.charCodeAt(i);
      if (c === 92) {
        i += 2; // skip "\x"
        continue;
      }
      if (c === 32 || c === 58 || c === 44) {
        i++;
        continue;
      }
      bytes[k] = (nibble(c) << 4) | nibble(token.charCodeAt(i + 1));
      s[k] = m.index + i;
      e[k] = m.index + i + 2;
      k++;
      i += 2;
    }
    if (appendDecoded(out, bytes.subarray(0, k), s.subarray(0, k), e.subarray(0, k), budget)) payloads++;
  }
  return payloads > 0 ? { builder: out, payloads } : null;
}

/** The value of a hex digit's code unit (HEX_RUN matched it, so it is one). */
const nibble = (c: number): number => (c <= 57 ? c - 48 : (c | 32) - 87);

const PERCENT = /%[0-9a-fA-F]{2}/g;
const URL_CHAR = /[A-Za-z0-9._~!$&'()*+,;=:@/?#[\]%-]/;

/** The URL-ish token around each %HH: grown by hand from the escape, so the cost stays linear
 * (a regex with a leading `(...)*` re-scanned long runs from every position). */
function* urlTokens(text: string): Generator<{ index: number; token: string }> {
  let consumed = 0;
  PERCENT.lastIndex = 0;
  for (let m = PERCENT.exec(text); m !== null; m = PERCENT.exec(text)) {
    if (m.index < consumed) continue;
    let start = m.index;
    while (start > consumed && URL_CHAR.test(text[start - 1]!)) start--;
    let end = m.index + 3;
    while (end < text.length && URL_CHAR.test(text[end]!)) end++;
    consumed = end;
    PERCENT.lastIndex = end;
    yield { index: start, token: text.slice(start, end) };
  }
}

export function decodeUrl(text: string, budget: { chars: number }): DecodeResult | null {
  const out = new MappedTextBuilder(0);
  let payloads = 0;
  let seen = 0;
  for (const m of urlTokens(text)) {
    if (++seen > MAX_CANDIDATES) break;
    const token = m.token;
    const bytes: number[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    for (let i = 0; i < token.length; ) {
      if (token.charCodeAt(i) === 37 && i + 2 < token.length + 0 && /^[0-9a-fA-F]{2}$/.test(token.slice(i + 1, i + 3))) {
        bytes.push(parseInt(token.slice(i + 1, i + 3), 16));
        starts.push(m.index + i);
        ends.push(m.index + i + 3);
        i += 3;
      } else {
        bytes.push(token.charCodeAt(i) === 43 ? 32 : token.charCodeAt(i)); // '+' is a space in forms
        starts.push(m.index + i);
        ends.push(m.index + i + 1);
        i++;
      }
    }
    if (appendDecoded(out, Uint8Array.from(bytes), Int32Array.from(starts), Int32Array.from(ends), budget)) payloads++;
  }
  return payloads > 0 ? { builder: out, payloads } : null;
}

/** rot13 of the whole text: one code unit for one, so the view maps by identity. */
export function rot13(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 97 && c <= 122) out += String.fromCharCode(((c - 97 + 13) % 26) + 97);
    else if (c >= 65 && c <= 90) out += String.fromCharCode(((c - 65 + 13) % 26) + 65);
    else out += text[i];
  }
  return out;
}

/**
 * JSON string escapes (`\uXXXX`, surrogate pairs included, `\n`, `\"`, `\\`, `\/`, `\b`, `\f`,
 * `\r`, `\t`) decoded across the whole text, wherever they are: a tool result that is JSON
 * written by `json.dumps` (non-ASCII as `\u0418\u0433...`), tool-call arguments, a document that
 * holds JSON. Everything else is copied as is; each decoded unit maps back to its escape.
 * A `\uXXXX` is one UTF-16 unit, so a surrogate pair written as two escapes decodes to the one
 * character both units make. Past the budget of decoded characters only the head is decoded.
 * Null when no `\u` escape and fewer than two `\n \r \t \" \b \f` are found (a Windows path
 * with one `\n` in it, or code with escaped backslashes, gets no view).
 */
export const JSON_ESCAPE = /\\(?:u[0-9a-fA-F]{4}|[nrtbf"\\/])/;

export function decodeJsonEscapes(text: string, budget: { chars: number }): DecodeResult | null {
  if (budget.chars <= 0) return null;
  // Over the budget: the head is decoded (as the other decoders keep the head of a payload).
  const n = Math.min(text.length, budget.chars);
  const out = new MappedTextBuilder(n);
  let unicode = 0;
  let simple = 0;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c !== 92 || i + 1 >= n) {
      out.push(c, i, i + 1);
      i++;
      continue;
    }
    const e = text.charCodeAt(i + 1);
    if (e === 117 /* u */ && i + 6 <= n && HEX4.test(text.slice(i + 2, i + 6))) {
      out.push(parseInt(text.slice(i + 2, i + 6), 16), i, i + 6);
      unicode++;
      i += 6;
      continue;
    }
    const simpleCode = SIMPLE_ESCAPES[e];
    if (simpleCode !== undefined) {
      out.push(simpleCode, i, i + 2);
      // `\\` and `\/` hide no words, unless `\\` escapes another escape (`\\u0049`: JSON twice).
      if ((simpleCode !== 92 && simpleCode !== 47) || (simpleCode === 92 && i + 2 < n && ESCAPE_LETTER.test(text[i + 2]!))) simple++;
      i += 2;
      continue;
    }
    out.push(c, i, i + 1);
    i++;
  }
  if (unicode === 0 && simple < 2) return null;
  budget.chars -= out.length;
  return { builder: out, payloads: 1 };
}

const HEX4 = /^[0-9a-fA-F]{4}$/;
const ESCAPE_LETTER = /[unrtbfx"]/;
const SIMPLE_ESCAPES: Record<number, number> = { 110: 10, 114: 13, 116: 9, 98: 8, 102: 12, 34: 34, 92: 92, 47: 47 };

/**
 * HTML character references: decimal (`&#73;`) and hexadecimal (`&#x49;`) ones, with or without
 * the closing `;` (browsers accept both), and the named ones text is commonly escaped with (a short
 * list written here, not HTML's full table). Whole text, like the JSON escapes. Null unless one
 * numeric reference or two named ones were decoded (an `&amp;` in a URL gets no view).
 */
export const HTML_ENTITY = /&#(?:[0-9]{1,7}|[xX][0-9a-fA-F]{1,6})|&[a-zA-Z][a-zA-Z0-9]{1,31};/;
const HTML_REF = /&(?:#([0-9]{1,7})|#[xX]([0-9a-fA-F]{1,6})|([a-zA-Z][a-zA-Z0-9]{1,31}));?/g;
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', sol: '/', bsol: '\\', colon: ':', semi: ';', comma: ',', period: '.',
  excl: '!', quest: '?', num: '#', dollar: '$', percnt: '%', lpar: '(', rpar: ')', lsqb: '[', rsqb: ']', lbrack: '[', rbrack: ']',
  lcub: '{', rcub: '}', lbrace: '{', rbrace: '}', equals: '=', plus: '+', ast: '*', commat: '@', grave: '`', hat: '^', lowbar: '_',
  verbar: '|', vert: '|', tilde: '~', hyphen: '-', dash: '-', ndash: '–', mdash: '—', lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”',
  hellip: '…', newline: '\n', tab: '\t', shy: '', zwj: '', zwnj: '',
};

export function decodeHtmlEntities(text: string, budget: { chars: number }): DecodeResult | null {
  if (budget.chars <= 0) return null;
  if (text.length > budget.chars) text = text.slice(0, budget.chars); // the head, as above
  const out = new MappedTextBuilder(text.length);
  let numeric = 0;
  let named = 0;
  let last = 0;
  HTML_REF.lastIndex = 0;
  for (let m = HTML_REF.exec(text); m !== null; m = HTML_REF.exec(text)) {
    let decoded: string | undefined;
    if (m[1] !== undefined || m[2] !== undefined) {
      const cp = m[1] !== undefined ? parseInt(m[1], 10) : parseInt(m[2]!, 16);
      if (cp > 0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff)) {
        decoded = String.fromCodePoint(cp);
        numeric++;
      }
    } else if (m[0].endsWith(';')) {
      decoded = NAMED[m[3]!] ?? NAMED[m[3]!.toLowerCase()];
      if (decoded !== undefined) named++;
    }
    if (decoded === undefined) continue;
    for (let k = last; k < m.index; k++) out.push(text.charCodeAt(k), k, k + 1);
    out.pushString(decoded, m.index, m.index + m[0].length);
    last = m.index + m[0].length;
  }
  if (numeric === 0 && named < 2) return null;
  for (let k = last; k < text.length; k++) out.push(text.charCodeAt(k), k, k + 1);
  budget.chars -= out.length;
  return { builder: out, payloads: numeric + named };
}

/**
 * Base32 (RFC 4648: A-Z and 2-7, `=` padding; a run in lower case is read the same way). A run
 * is only decoded when it could be base32 of something (a length base32 can have, letters and
 * digits both present), and kept, like every decoded payload, only when it is valid UTF-8 that
 * is mostly printable text: upper-case identifiers and random tokens decode to noise and are
 * dropped.
 */
const BASE32_RUN = /\b(?:[A-Z2-7]{16,}|[a-z2-7]{16,})={0,6}/g;
const BASE32_DIGIT = /[2-7]/;
const BASE32_VALID_TAIL = new Set([0, 2, 4, 5, 7]);
const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function letters(token: string): number {
  let n = 0;
  for (let i = 0; i < token.length; i++) if (token.charCodeAt(i) >= 65) n++;
  return n;
}

export function decodeBase32(text: string, budget: { chars: number }): DecodeResult | null {
  const out = new MappedTextBuilder(0);
  let payloads = 0;
  let seen = 0;
  BASE32_RUN.lastIndex = 0;
  for (let m = BASE32_RUN.exec(text); m !== null && seen < MAX_CANDIDATES; m = BASE32_RUN.exec(text)) {
    seen++;
    const token = m[0].replace(/=+$/, '').toUpperCase();
    if (!BASE32_VALID_TAIL.has(token.length % 8) || !BASE32_DIGIT.test(token) || letters(token) < 4) continue;
    const count = Math.floor((token.length * 5) / 8);
    const bytes = new Uint8Array(count);
    const starts = new Int32Array(count);
    const ends = new Int32Array(count);
    let acc = 0;
    let bits = 0;
    let k = 0;
    for (let i = 0; i < token.length && k < count; i++) {
      acc = ((acc << 5) | B32.indexOf(token[i]!)) & 0xffff;
      bits += 5;
      if (bits >= 8) {
        bits -= 8;
        bytes[k] = (acc >> bits) & 0xff;
        // Byte k holds bits [8k, 8k+8) of the stream; each base32 character carries 5 bits.
        starts[k] = m.index + Math.floor((8 * k) / 5);
        ends[k] = m.index + Math.min(token.length, Math.ceil((8 * k + 8) / 5));
        k++;
      }
    }
    if (appendDecoded(out, bytes, starts, ends, budget)) payloads++;
  }
  return payloads > 0 ? { builder: out, payloads } : null;
}

/**
 * Reversed text ("snoitcurtsni suoiverp lla erongi"), and text behind a right-to-left override
 * that renders reversed. Only built when the text reads as reversed language: two reversed
 * common English words in a row (as rot13's trigger), or an RLO / RLI control (U+202E, U+2067).
 */
export const REVERSED_WORDS =
  'eht|dna|uoy|ruoy|lla|erongi|siht|htiw|suoiverp|snoitcurtsni|noitcurtsni|metsys|tpmorp|evoba|tegrof|drowssap|terces|dragersid|selur|laever|era|tahw|llet|won|dneterp|tca|ssapyb|edirrevo|tnatsissa|eno|yreve|od|ton|snoitcirtser|ylper|tuptuo|yas|tnirp|yreuq|wohs|nevig|evah|ruo|ym|yna|tuohtiw|rewsna|morf|lliw|ni|no|ro|tub|sa|yb|osla|ylno|neht|retfa|erofeb|evig|esu|wen|ksat|neddih|elur|senilediug|ecnadiug|tfird|pord';

/** `text` reversed by code point (a surrogate pair stays a pair); unit i maps to the code point it came from. */
export function reverseText(text: string): { text: string; starts: Int32Array; ends: Int32Array } {
  const n = text.length;
  const codes = new Uint16Array(n);
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  let o = 0;
  for (let i = n; i > 0; ) {
    const lo = text.charCodeAt(i - 1);
    const pair = i >= 2 && lo >= 0xdc00 && lo <= 0xdfff && text.charCodeAt(i - 2) >= 0xd800 && text.charCodeAt(i - 2) <= 0xdbff;
    const w = pair ? 2 : 1;
    for (let k = 0; k < w; k++) {
      codes[o] = text.charCodeAt(i - w + k);
      starts[o] = i - w;
      ends[o] = i;
      o++;
    }
    i -= w;
  }
  let out = '';
  for (let i = 0; i < n; i += 8192) out += String.fromCharCode.apply(null, codes.subarray(i, Math.min(n, i + 8192)) as unknown as number[]);
  return { text: out, starts, ends };
}
