/**
 * Word-level repairs on the folded (lower-case) text: "i g n o r e  a l l" -> "ignore all" and
 * "1gn0r3" -> "ignore". Both keep the offset map, so hits still point at the original text.
 */
import { MappedTextBuilder } from './mapped.js';

function isTokenChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 64 || c === 36; // a-z 0-9 @ $
}

function isSeparator(c: number): boolean {
  // space, tab, . - _ * ~ / | + , : ; ' " !
  return c === 32 || c === 9 || c === 46 || c === 45 || c === 95 || c === 42 || c === 126 || c === 47 || c === 124 || c === 43 || c === 44 || c === 58 || c === 59 || c === 39 || c === 34 || c === 33;
}

const MIN_SPACED_LETTERS = 4;
const MAX_GAP = 3;

/**
 * Finds runs of at least four one-character tokens separated by short gaps. Inside a run, gaps
 * that equal the run's most common gap (the separator the attacker put between letters) are
 * dropped; any other gap (a double space, a different separator) becomes one space: a word break.
 */
/** Positions of the letters of the run being read (reused; grown on a long run). */
let letterAt = new Int32Array(256);

export function joinSpacedLetters(src: MappedTextBuilder): { builder: MappedTextBuilder; words: number } | null {
  const n = src.length;
  // Token starts/ends of one-character tokens, in order, with the gap text before each.
  const drop = new Uint8Array(n); // 1: drop, 2: replace by a space (first char of a word gap), 3: drop rest of the gap
  let words = 0;
  let i = 0;
  let any = false;
  while (i < n) {
    // Find a one-character token at i.
    if (!isTokenChar(src.codeAt(i)) || (i > 0 && isTokenChar(src.codeAt(i - 1))) || (i + 1 < n && isTokenChar(src.codeAt(i + 1)))) {
      i++;
      continue;
    }
    // Extend the run: letters at positions p0, p1, ... with gaps of separators between them
    // (in a typed array: a plain array's push was most of the cost on a long run).
    let count = 1;
    letterAt[0] = i;
    let j = i + 1;
    for (;;) {
      let k = j;
      while (k < n && k - j < MAX_GAP && isSeparator(src.codeAt(k))) k++;
      if (k === j || k >= n || !isTokenChar(src.codeAt(k)) || (k + 1 < n && isTokenChar(src.codeAt(k + 1)))) break;
      if (count === letterAt.length) {
        const grown = new Int32Array(letterAt.length * 2);
        grown.set(letterAt);
        letterAt = grown;
      }
      letterAt[count++] = k;
      j = k + 1;
    }
    const letters = letterAt.subarray(0, count);
    if (letters.length >= MIN_SPACED_LETTERS) {
      any = true;
      // Most common gap is the in-word separator. A gap is at most MAX_GAP separators, all
      // ASCII, so it is keyed by a number (its characters and its length) rather than a string
      // built per gap: a megabyte of "x x x ..." is half a million gaps.
      const counts = new Map<number, number>();
      const gaps = new Float64Array(letters.length - 1);
      for (let g = 1; g < letters.length; g++) {
        const from = letters[g - 1]! + 1;
        const to = letters[g]!;
        let key = 0;
        for (let p = from; p < to; p++) key = key * 128 + src.codeAt(p);
        key = key * 4 + (to - from);
        gaps[g - 1] = key;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      let common = gaps[0]!;
      for (const [key, c] of counts) if (c > counts.get(common)! || (c === counts.get(common) && (key & 3) < (common & 3))) common = key;
      words++;
      for (let g = 1; g < letters.length; g++) {
        const from = letters[g - 1]! + 1;
        const to = letters[g]!;
        const inWord = gaps[g - 1] === common;
        if (!inWord) words++;
        for (let p = from; p < to; p++) drop[p] = inWord ? 1 : p === from ? 2 : 3;
      }
    }
    i = letters[letters.length - 1]! + 1;
  }
  if (!any) return null;
  const out = new MappedTextBuilder(n);
  for (let p = 0; p < n; p++) {
    const d = drop[p];
    if (d === 0) out.push(src.codeAt(p), src.startAt(p), src.endAt(p));
    else if (d === 2) out.push(32, src.startAt(p), src.endAt(p));
  }
  return { builder: out, words };
}

const LEET: Record<number, number> = {
  48: 111, // 0 o
  49: 105, // 1 i
  51: 101, // 3 e
  52: 97, // 4 a
  53: 115, // 5 s
  55: 116, // 7 t
  56: 98, // 8 b
  57: 103, // 9 g
  64: 97, // @ a
  36: 115, // $ s
  33: 105, // ! i
  124: 108, // | l
};

const MAX_LEET_RUN = 32;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

function isLeetToken(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 64 || c === 36 || c === 33 || c === 124;
}

/**
 * In place: a word (run of letters, digits and @ $ ! |) with at least two letters and a leet
 * character directly before a letter ("h4ck", "1gn0r3", "y0u") has all its leet characters
 * mapped to letters. "mp3", "gpt4", "x86_64" and plain numbers stay as they are.
 * Returns the number of words changed.
 */
export function mapLeetspeak(b: MappedTextBuilder): number {
  const n = b.length;
  let changed = 0;
  let i = 0;
  // Length of the whitespace-delimited run each position sits in: leetspeak words stand
  // alone; fragments of base64, URLs and hashes sit in long runs and are left as they are.
  let runEnd = -1;
  let runLen = 0;
  while (i < n) {
    if (i >= runEnd) {
      let s = i;
      while (s < n && isSpace(b.codeAt(s))) s++;
      let e = s;
      while (e < n && !isSpace(b.codeAt(e))) e++;
      runEnd = e;
      runLen = e - s;
    }
    if (!isLeetToken(b.codeAt(i)) || runLen > MAX_LEET_RUN) {
      i++;
      continue;
    }
    let j = i;
    let letters = 0;
    let leetBeforeLetter = false;
    while (j < n && isLeetToken(b.codeAt(j))) {
      const c = b.codeAt(j);
      if (c >= 97 && c <= 122) letters++;
      else if (LEET[c] !== undefined && j + 1 < n) {
        const next = b.codeAt(j + 1);
        if (next >= 97 && next <= 122) leetBeforeLetter = true;
      }
      j++;
    }
    // A trailing "!" is punctuation, not a letter.
    let end = j;
    while (end > i && b.codeAt(end - 1) === 33) end--;
    if (letters >= 2 && leetBeforeLetter && j - i <= 24) {
      for (let p = i; p < end; p++) {
        const m = LEET[b.codeAt(p)];
        if (m !== undefined) b.setCode(p, m);
      }
      changed++;
    }
    i = j;
  }
  // Text that is plainly leetspeak (two words mapped above) gets the words the cautious rule
  // leaves alone mapped too: a leet character only at the end or one letter ("byp455", "m3",
  // "7h3"). Alone, those look like "mp3" and "h264"; among leet words they are leet words.
  if (changed >= 2) changed += mapRemainingLeet(b);
  return changed;
}

function mapRemainingLeet(b: MappedTextBuilder): number {
  const n = b.length;
  let changed = 0;
  for (let i = 0; i < n; ) {
    if (!isLeetToken(b.codeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && isLeetToken(b.codeAt(j))) j++;
    let end = j;
    while (end > i && b.codeAt(end - 1) === 33) end--; // a trailing "!" is punctuation
    let letters = 0;
    let leet = 0;
    for (let p = i; p < end; p++) {
      const c = b.codeAt(p);
      if (c >= 97 && c <= 122) letters++;
      else if (LEET[c] !== undefined) leet++;
    }
    if (letters >= 1 && leet >= 1 && j - i <= 24) {
      for (let p = i; p < end; p++) {
        const m = LEET[b.codeAt(p)];
        if (m !== undefined) b.setCode(p, m);
      }
      changed++;
    }
    i = j;
  }
  return changed;
}
