/**
 * Decides which (expensive) views are worth building. Plain ASCII prose with no encoded blobs,
 * leetspeak, spaced-out letters or rot13-looking words gets none.
 *
 * The checks are RE2 patterns (TRIAGE_PATTERNS). Most texts match none of them, and a cheap
 * JavaScript loop (triageMaybe) proves that without an RE2 pass or a UTF-8 conversion; only
 * texts it cannot clear go through the patterns themselves, so the booleans are exactly the
 * patterns' (the rule matcher's triage, CompiledRules.triage, runs them with flags 'iu';
 * standalone use, for decoded payloads, without flags, as before).
 */
import RE2 from 're2';

const ROT13_WORDS =
  'gur|naq|lbh|lbhe|nyy|vtaber|guvf|jvgu|cerivbhf|vafgehpgvbaf|flfgrz|cebzcg|nobir|sbetrg|cnffjbeq|frperg|qvfertneq|ehyrf|erirny|vf|gb|bs|ner|jung|gryy|zr|abj|cergraq|npg';

/** Order matters: triageFromMatches reads them by index. */
export const TRIAGE_PATTERNS: readonly string[] = [
  // 0 anything outside ASCII that folding could change: NFKC, look-alikes, invisible, bidi and
  //   tag characters. Scripts with nothing to fold (Indic, Thai, Hebrew, Arabic, kana, CJK
  //   ideographs, Hangul) and emoji are left out, so prose in them skips the fold loop.
  '[^\\x00-\\x7f\\x{0590}-\\x{06FF}\\x{0900}-\\x{0DFF}\\x{0E00}-\\x{0E7F}\\x{3040}-\\x{30FF}\\x{4E00}-\\x{9FFF}\\x{AC00}-\\x{D7AF}\\x{1F300}-\\x{1FAFF}]',
  // 1 a digit inside a word of letters: leetspeak (h4ck, 1gn0r3, y0u)
  '(?i)\\b[a-z0-9]*[a-z][0134579]+[a-z][a-z0-9]*\\b|\\b[0134579][a-z]{3,}\\b',
  // 2 four or more one-letter tokens with short gaps: s p a c e d - o u t (a letter first, so
  //   number tables like "12.4 | 3.1" do not count)
  '(?i)\\b[a-z](?:[ \\t._*~/|+,:;-]{1,3}[a-z0-9]\\b){3}',
  // 3 a long run of the base64 / hex alphabet (the decoder then skips plain long words; a
  //   stricter pattern here measured 7x slower inside the shared set)
  '[A-Za-z0-9+/]{16,}',
  // 4 URL percent-encoding
  '%[0-9a-fA-F]{2}',
  // 5 \xHH escapes, or eight hex byte pairs separated by spaces or colons
  '\\\\[xX][0-9a-fA-F]{2}|\\b[0-9a-fA-F]{2}(?:[ :,][0-9a-fA-F]{2}){7}\\b',
  // 6 two rot13'd common English words in a row (gur, naq, lbh = the, and, you)
  `(?i)\\b(?:${ROT13_WORDS})\\W+(?:${ROT13_WORDS})\\b`,
];

export interface Triage {
  nonAscii: boolean;
  leet: boolean;
  spaced: boolean;
  longToken: boolean;
  urlEscape: boolean;
  hexEscape: boolean;
  rot13: boolean;
}

export const NOTHING: Triage = Object.freeze({
  nonAscii: false,
  leet: false,
  spaced: false,
  longToken: false,
  urlEscape: false,
  hexEscape: false,
  rot13: false,
});

/** Builds a Triage from RE2.Set match indices where the triage patterns start at `base`. */
export function triageFromMatches(indices: readonly number[], base: number): Triage {
  let t: Triage | null = null;
  for (const i of indices) {
    const k = i - base;
    if (k < 0 || k >= TRIAGE_PATTERNS.length) continue;
    t ??= { ...NOTHING };
    switch (k) {
      case 0: t.nonAscii = true; break;
      case 1: t.leet = true; break;
      case 2: t.spaced = true; break;
      case 3: t.longToken = true; break;
      case 4: t.urlEscape = true; break;
      case 5: t.hexEscape = true; break;
      case 6: t.rot13 = true; break;
    }
  }
  return t ?? NOTHING;
}

const ROT13_LIST = ROT13_WORDS.split('|');

/** Character types for triageMaybe (ASCII only). Exported for the rule matcher's fused loop
 * (literals.ts scanTriage), which must stay step for step the same as triageMaybe. */
export const LETTER = 1;
export const LEET = 2; // 0 1 3 4 5 7 9
export const HEX = 4;
export const B64 = 8; // [A-Za-z0-9+/]
export const GAP = 16; // the separators of pattern 2
export const WORD = 32; // RE2's \w: [0-9A-Za-z_]
export const ALNUM = 64;
export const TYPE = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  const letter = /[A-Za-z]/.test(ch);
  const digit = /[0-9]/.test(ch);
  TYPE[c] =
    (letter ? LETTER | ALNUM : 0) |
    (digit ? ALNUM : 0) |
    (/[0134579]/.test(ch) ? LEET : 0) |
    (/[0-9a-fA-F]/.test(ch) ? HEX : 0) |
    (/[A-Za-z0-9+/]/.test(ch) ? B64 : 0) |
    (/[ \t._*~/|+,:;-]/.test(ch) ? GAP : 0) |
    (letter || digit || ch === '_' ? WORD : 0);
}

export function wordHash(h: number, c: number): number {
  return (Math.imul(h, 31) + (c | 32)) | 0;
}
export const ROT13_HASHES = new Set(ROT13_LIST.map((w) => [...w].reduce((h, ch) => wordHash(h, ch.charCodeAt(0)), 0)));
export const ROT13_MAX = Math.max(...ROT13_LIST.map((w) => w.length));

/**
 * False only when none of TRIAGE_PATTERNS can match `text` (flags 'iu' or none): then every
 * Triage boolean is false and no RE2 pass is needed, the common case. True means "maybe", and
 * the patterns themselves decide (exactTriage). One loop over the UTF-16 code units; each check
 * is implied by its pattern (on ASCII text; any other character answers true):
 *  0 non-ASCII: any code unit >= 0x80;
 *  1 leetspeak: both branches need a digit of [0134579] right before a letter;
 *  2 spaced letters: three one-character words, each after a separator, at most 4 apart;
 *  3 base64: 16 characters of [A-Za-z0-9+/] in a row;
 *  4 %XX: '%' and two hex digits;
 *  5 \xHH: a backslash and x; eight hex pairs: 16 hex digits with only ' ', ':' or ',' between;
 *  6 rot13: two words in a row whose (hashed) lower case is in the rot13 list.
 */
export function triageMaybe(text: string): boolean {
  const n = text.length;
  let b64 = 0;
  let hex = 0;
  let prev = 0; // type of the previous character
  let prev2 = 0;
  let lastE = -100; // last one-character word after a separator (its index)
  let lastE2 = -100;
  let hash = 0;
  let len = 0;
  let prevRot = false;
  for (let i = 0; i <= n; i++) {
    let t = 0;
    if (i < n) {
      const c = text.charCodeAt(i);
      if (c >= 128) return true;
      t = TYPE[c]!;
      if ((t & B64) !== 0) {
        if (++b64 >= 16) return true;
      } else b64 = 0;
      if ((t & HEX) !== 0) {
        if (++hex >= 16) return true;
      } else if (c !== 32 && c !== 58 && c !== 44) hex = 0;
      if (c === 37 && i + 2 < n) {
        const a = text.charCodeAt(i + 1);
        const b = text.charCodeAt(i + 2);
        if (a < 128 && b < 128 && (TYPE[a]! & HEX) !== 0 && (TYPE[b]! & HEX) !== 0) return true;
      } else if (c === 92 && i + 1 < n && (text.charCodeAt(i + 1) | 32) === 120) return true;
      if ((t & LETTER) !== 0 && (prev & LEET) !== 0) return true;
      if ((t & WORD) !== 0) {
        hash = wordHash(hash, c);
        len++;
        prev2 = prev;
        prev = t;
        continue;
      }
    }
    // i is past a word character, or the end of the text.
    if ((prev & ALNUM) !== 0 && (prev2 & GAP) !== 0) {
      if (i - 1 - lastE <= 4 && lastE - lastE2 <= 4) return true;
      lastE2 = lastE;
      lastE = i - 1;
    }
    if (len > 0) {
      const rot = len <= ROT13_MAX && ROT13_HASHES.has(hash);
      if (rot && prevRot) return true;
      prevRot = rot;
      hash = 0;
      len = 0;
    }
    prev2 = prev;
    prev = t;
  }
  return false;
}

let exactSet: InstanceType<typeof RE2.Set> | null = null;
let exactOne: RE2[] | null = null;

/** The triage patterns (flags 'iu', as the rule matcher always ran them) over UTF-8 bytes. */
export function exactTriage(bytes: Buffer): Triage {
  exactSet ??= new RE2.Set(TRIAGE_PATTERNS as string[], 'iu');
  try {
    return triageFromMatches(exactSet.match(bytes), 0);
  } catch {
    // The set's DFA ran out of memory on a pathological input: one pattern at a time.
    exactOne ??= TRIAGE_PATTERNS.map((p) => new RE2(p, 'iu'));
    const found: number[] = [];
    exactOne.forEach((re, k) => {
      if (re.test(bytes)) found.push(k);
    });
    return triageFromMatches(found, 0);
  }
}

let standalone: InstanceType<typeof RE2.Set> | null = null;

/** Triage without a rule set. */
export function triage(text: string): Triage {
  if (!triageMaybe(text)) return NOTHING;
  standalone ??= new RE2.Set(TRIAGE_PATTERNS as string[]);
  return triageFromMatches(standalone.match(toUtf8(text)), 0);
}

/** UTF-8 bytes for RE2: node-re2 converts strings on every call, and a Buffer converts faster.
 * Buffer.from(…, 'utf8') is already fast for ASCII; a separate ASCII check did not pay. */
export function toUtf8(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}
