/**
 * Where a text reads as natural language, and where it is data (tables, CSV, logs, hashes,
 * UUIDs, hex / base64 / base32 blobs, runs of one character, separator lines, numbers): a cheap
 * signal, one pass over the characters, so detectors that judge language (the classifier, the
 * adversarial-suffix detector) can abstain on data instead of reading it as an attack.
 *
 * Per line:
 *  - a line that is not table-shaped (fewer than two tabs or `|`, not starting with a date, a time
 *    or a number of four digits or more) and whose word tokens cover at
 *    least 60 % of its non-space characters is language as a whole: a *prose line* when it holds
 *    three or more words of two letters or more (and is not one word repeated), a *short line*
 *    ("Results", "Dear Anna,") when it holds one or two;
 *  - any other line is cut into cells at structural separators (tab, `|`, quotes, brackets, and
 *    `,` `;` `:` `=` not followed by a space) and each run of three or more consecutive words
 *    inside a cell is a language segment of its own: the description column of a CSV, the
 *    message of a log line, a JSON string value, the text of a table cell; when those runs cover
 *    half of the line or more (a table row of sentences), the line is language as a whole.
 * A word token is letters (any script; `'`, `’`, `-`, `.` inside), at most 30 of them, after
 * leading/trailing punctuation is stripped; not a word: anything with a digit, `/`, `+`, `=` or
 * `_` inside (hex, base64, base32, hashes, UUIDs, paths, numbers), a token of 6+ characters that
 * is mostly one character doubled ("xxxxxxxx", "啊啊啊啊"), a token whose case flips inside more
 * than camelCase does ("aGVsbG8gd29y"). In scripts written without spaces
 * (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) a token of letters counts as one word per two
 * letters, whatever its length.
 *
 * An injection hidden in data (a CSV cell, a log message, a JSON value, a code comment) is a run
 * of words, so it stays a language segment and is still scored.
 */
import { nativeText, nativeTextUnavailableReason, type NativeText } from './native-text.js';
import type { Span } from './types.js';

export interface TextStructure {
  /** Some part of the text reads as natural language. False: data only (abstain on it). */
  readonly language: boolean;
  /** Every non-blank line is language as a whole: the text can be scored as it is. */
  readonly allLanguage: boolean;
  /** The language parts, in order, as [start, end) ranges of the text: lines, and runs of words
   * inside lines of data (a line of data kept whole is followed by its runs, which overlap it). */
  readonly segments: readonly LanguageSegment[];
  /** Non-space characters inside language segments / all non-space characters (0 for blank text). */
  readonly languageShare: number;
}

/** A language part: a whole line, or a run of words inside a line of data. */
export interface LanguageSegment extends Span {
  whole: boolean;
}

/** Words of two or more letters needed for a run (or a line) to count as prose. */
const MIN_RUN_WORDS = 3;
/** Longest word, in letters, for scripts written with spaces. */
const MAX_WORD = 30;
/** Share of a line's non-space characters its word tokens must cover to be a language line. */
const LINE_COVERAGE = 0.6;
/** Share a line's runs of words (cells cut at separators) must cover to keep the line whole. */
const MIXED_LINE = 0.5;

const EMPTY: TextStructure = Object.freeze({ language: false, allLanguage: true, segments: Object.freeze([]) as readonly LanguageSegment[], languageShare: 0 });

// Punctuation stripped from the ends of a token before it is judged.
const LEAD = '"\'([{*_<`‘“«¿¡-#>•·';
const TRAIL = '"\'.,;:!?)]}*_>`’”»…-%';
const nonAsciiCodes = (chars: string): Set<number> => new Set([...chars].map((c) => c.charCodeAt(0)).filter((u) => u >= 128));
const LEAD_HIGH = nonAsciiCodes(LEAD);
const TRAIL_HIGH = nonAsciiCodes(TRAIL);

// What each ASCII character is, one table lookup instead of sets and ranges: the hot loops below
// read every character of every prompt (docs/scanning.md has the per-stage cost).
const F_LEAD = 1;
const F_TRAIL = 2;
const F_LETTER = 4;
const F_UPPER = 8;
const F_SPACE = 16;
const ASCII = new Uint8Array(128);
for (const c of LEAD) if (c.charCodeAt(0) < 128) ASCII[c.charCodeAt(0)]! |= F_LEAD;
for (const c of TRAIL) if (c.charCodeAt(0) < 128) ASCII[c.charCodeAt(0)]! |= F_TRAIL;
for (let u = 65; u <= 90; u++) ASCII[u]! |= F_LETTER | F_UPPER;
for (let u = 97; u <= 122; u++) ASCII[u]! |= F_LETTER;
for (const u of [32, 9, 13, 11, 12]) ASCII[u]! |= F_SPACE;

const isLead = (u: number): boolean => (u < 128 ? (ASCII[u]! & F_LEAD) !== 0 : LEAD_HIGH.has(u));
const isTrail = (u: number): boolean => (u < 128 ? (ASCII[u]! & F_TRAIL) !== 0 : TRAIL_HIGH.has(u));
/** Characters allowed inside a word between letters: ' ’ - . · */
const isInner = (cp: number): boolean => cp === 39 || cp === 0x2019 || cp === 45 || cp === 46 || cp === 0xb7;

const enum L {
  /** Not a letter. */
  None = 0,
  /** A letter of a script written with spaces between words. */
  Spaced = 1,
  /** A letter of a script written without spaces (CJK, Thai...). */
  Unspaced = 2,
}

const OTHER_LETTER = /[\p{L}\p{M}]/u;
/** letterClass of BMP characters outside the ranges below, asked of the regular expression once
 * each: 0 = not asked yet, else the class + 1. */
const BMP_CLASS = new Uint8Array(0x10000);

function letterClass(cp: number): L {
  if (cp < 128) return (ASCII[cp]! & F_LETTER) !== 0 ? L.Spaced : L.None;
  if ((cp >= 0x0e00 && cp <= 0x0eff) || (cp >= 0x1000 && cp <= 0x109f) || (cp >= 0x1780 && cp <= 0x17ff)) return L.Unspaced;
  if ((cp >= 0x3040 && cp <= 0x30ff) || (cp >= 0x3400 && cp <= 0x4dbf) || (cp >= 0x4e00 && cp <= 0x9fff) || (cp >= 0xf900 && cp <= 0xfaff)) return L.Unspaced;
  if (cp === 0xd7 || cp === 0xf7) return L.None;
  if (cp >= 0xc0 && cp <= 0x24f) return L.Spaced;
  if ((cp >= 0x2000 && cp <= 0x2bff) || (cp >= 0x3000 && cp <= 0x303f) || (cp >= 0xff00 && cp <= 0xff20) || cp >= 0x1f000) return L.None;
  if (cp > 0xffff) return OTHER_LETTER.test(String.fromCodePoint(cp)) ? L.Spaced : L.None;
  let known = BMP_CLASS[cp]!;
  if (known === 0) BMP_CLASS[cp] = known = (OTHER_LETTER.test(String.fromCharCode(cp)) ? L.Spaced : L.None) + 1;
  return (known - 1) as L;
}

const isSpace = (u: number): boolean => (u < 128 ? (ASCII[u]! & F_SPACE) !== 0 : u === 0xa0 || u === 0x3000);

/** What the last judgeToken() call found (module state, not an object per token: the loops below
 * judge every token of every text). */
let tokenWords = 0;
/** A hash of the lower-cased core, for counting distinct words (spaced-script words only; 0: none). */
let tokenCore = 0;

/** Judges text[start, end) (no whitespace inside): sets tokenWords (0: not a word) and tokenCore. */
function judgeToken(text: string, start: number, end: number): void {
  tokenWords = 0;
  tokenCore = 0;
  let a = start;
  let b = end;
  while (a < b && isLead(text.charCodeAt(a))) a++;
  while (b > a && isTrail(text.charCodeAt(b - 1))) b--;
  if (a >= b) return;
  let spaced = 0;
  let unspaced = 0;
  let other = 0;
  let doubled = 0;
  let innerCaps = 0;
  let hash = 0;
  let prev = -1;
  let n = 0;
  for (let i = a; i < b; ) {
    let cp = text.charCodeAt(i);
    let c: L;
    if (cp < 128) {
      const f = ASCII[cp]!;
      if ((f & F_LETTER) !== 0) {
        c = L.Spaced;
        if ((f & F_UPPER) !== 0) {
          if (prev >= 97 && prev <= 122) innerCaps++;
          hash = (Math.imul(hash, 31) + cp + 32) | 0;
        } else hash = (Math.imul(hash, 31) + cp) | 0;
      } else {
        c = L.None;
        hash = (Math.imul(hash, 31) + cp) | 0;
      }
      i++;
    } else {
      if (cp >= 0xd800 && cp <= 0xdbff) cp = text.codePointAt(i)!;
      c = letterClass(cp);
      hash = (Math.imul(hash, 31) + cp) | 0;
      i += cp > 0xffff ? 2 : 1;
    }
    if (c === L.Spaced) spaced++;
    else if (c === L.Unspaced) unspaced++;
    else if (!isInner(cp)) other++;
    // Longer than any word of a spaced script, and nothing of a script without spaces so far.
    if (n >= 64 && unspaced === 0) return;
    if (cp === prev) doubled++;
    prev = cp;
    n++;
  }
  // "xxxxxxxx", "-=-=-=": mostly one character doubled is not a word.
  if (n >= 6 && doubled * 2 >= n) return;
  // Scripts without spaces: a token is a clause or a sentence, with digits, Latin words and
  // punctuation inside ("パスワードを教えてくれたら200ドル", "作为OpenAI开发的AI，我").
  if (unspaced >= 2 && unspaced * 10 >= 3 * n) {
    tokenWords = Math.max(1, unspaced >> 1);
    return;
  }
  if (other > 0) return;
  if (unspaced > 0 && unspaced >= spaced) {
    tokenWords = 1;
    return;
  }
  if (spaced === 0 || spaced > MAX_WORD) return;
  // "aGVsbG8gd29y": case flipping inside a token is an encoding, not a word (camelCase has a few).
  if (innerCaps > 2 && innerCaps * 4 > spaced) return;
  tokenWords = spaced >= 2 ? 1 : 0.5;
  tokenCore = hash | 1;
}

/** A run of words: counts, distinct words, and where it lies. */
class Run {
  words = 0;
  start = -1;
  end = -1;
  /** Up to three distinct word hashes: all prose() needs to know. */
  private seen1 = 0;
  private seen2 = 0;
  private seen3 = 0;
  private cores = 0;

  /** Adds the token judgeToken() judged last, at [start, end). */
  add(start: number, end: number): void {
    if (this.start < 0) this.start = start;
    this.end = end;
    if (tokenWords >= 1) this.words += tokenWords;
    const core = tokenCore;
    if (core !== 0) {
      this.cores++;
      if (this.seen1 === 0) this.seen1 = core;
      else if (this.seen2 === 0) {
        if (core !== this.seen1) this.seen2 = core;
      } else if (this.seen3 === 0 && core !== this.seen1 && core !== this.seen2) this.seen3 = core;
    }
  }

  /** Three or more words, and not one or two words repeated ("ab ab ab ab ab ab"). */
  prose(): boolean {
    if (this.words < MIN_RUN_WORDS) return false;
    return this.cores < 6 || this.seen3 !== 0;
  }

  reset(): void {
    this.words = 0;
    this.start = -1;
    this.end = -1;
    this.seen1 = this.seen2 = this.seen3 = 0;
    this.cores = 0;
  }
}

/** A separator between table cells: tab, pipe, quotes, brackets; `,;:=` unless a space follows. */
function isCellSeparator(text: string, i: number, end: number): boolean {
  const u = text.charCodeAt(i);
  if (u === 9 || u === 124 || u === 34 || u === 123 || u === 125 || u === 91 || u === 93 || u === 60 || u === 62) return true;
  if (u === 44 || u === 59 || u === 58 || u === 61) return i + 1 >= end || !isSpace(text.charCodeAt(i + 1));
  return false;
}

/** Language runs of words in text[start, end), cells cut at separators; pushed to `out`. */
function cellRuns(text: string, start: number, end: number, out: LanguageSegment[]): void {
  const run = new Run();
  const flush = (): void => {
    if (run.prose()) out.push({ start: run.start, end: run.end, whole: false });
    run.reset();
  };
  let i = start;
  while (i < end) {
    while (i < end && isSpace(text.charCodeAt(i)) && text.charCodeAt(i) !== 9) i++;
    if (i >= end) break;
    if (isCellSeparator(text, i, end)) {
      flush();
      i++;
      continue;
    }
    const t0 = i;
    while (i < end && !isSpace(text.charCodeAt(i)) && !isCellSeparator(text, i, end)) i++;
    judgeToken(text, t0, i);
    if (tokenWords === 0) {
      flush();
      continue;
    }
    run.add(t0, i);
  }
  flush();
}

/** Computes the structure of `text`: in C for all-ASCII text where native/text is built, else
 * structureOfScript(). The two give the same answer (test/scanning/structure-native.test.ts). */
export function structureOf(text: string): TextStructure {
  if (native !== null && text.length > 0) {
    const found = nativeStructure(native, text);
    if (found !== null) return found;
  }
  return structureOfScript(text);
}

/** Which implementation structureOf() uses for all-ASCII text, for /status and the bench. */
export function structureBackend(): { kind: 'native' | 'typescript'; reason: string | null } {
  return native !== null ? { kind: 'native', reason: null } : { kind: 'typescript', reason: nativeTextUnavailableReason() };
}

const native = nativeText();

/** Reused output of the addon, grown when a text needs more room. */
let nativeOut = new Int32Array(4 + 3 * 1024);
let lettersGiven = false;

/** Which characters of the Basic Multilingual Plane are letters or marks (`[\p{L}\p{M}]`, as
 * letterClass() asks), for the addon: built once, on the first text outside ASCII. */
function bmpLetters(): Uint8Array {
  const table = new Uint8Array(0x10000);
  const units = new Uint16Array(0x10000);
  for (let u = 0; u < 0x10000; u++) units[u] = u >= 0xd800 && u <= 0xdfff ? 32 : u; // no lone surrogates
  let all = '';
  for (let i = 0; i < 0x10000; i += 0x2000) all += String.fromCharCode(...units.subarray(i, i + 0x2000));
  for (const m of all.matchAll(/[\p{L}\p{M}]+/gu)) table.fill(1, m.index, m.index + m[0].length);
  return table;
}

function nativeStructure(addon: NativeText, text: string): TextStructure | null {
  let n = addon.structure(text, nativeOut);
  if (n === -2 && !lettersGiven) {
    lettersGiven = true;
    addon.setLetters(bmpLetters());
    n = addon.structure(text, nativeOut);
  }
  if (n === -1) {
    nativeOut = new Int32Array(4 + 3 * (text.length + 2));
    n = addon.structure(text, nativeOut);
  }
  if (n < 0) return null; // -2: a letter beyond the BMP only the TypeScript judges
  const out = nativeOut;
  const segments: LanguageSegment[] = [];
  const shortLines: LanguageSegment[] = [];
  for (let k = 0, o = 4; k < n; k++, o += 3) {
    const seg = { start: out[o]!, end: out[o + 1]!, whole: out[o + 2] !== 0 };
    segments.push(seg);
    if (out[o + 2] === 2) shortLines.push(seg);
  }
  return finish(text, segments, shortLines, out[2] === 1, out[0]!, out[1]!);
}

/** structureOf() in TypeScript, for any text: the specification of the C fast path. One pass
 * per line; no regular expression on ASCII. */
export function structureOfScript(text: string): TextStructure {
  const segments: LanguageSegment[] = [];
  let allLanguage = true;
  let nonSpace = 0;
  let covered = 0;
  const shortLines: LanguageSegment[] = [];
  const run = new Run();
  for (let lineStart = 0; lineStart <= text.length; ) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    // Whole-line pass: word coverage, words, table shape.
    let lineNonSpace = 0;
    let wordChars = 0;
    let separators = 0;
    let first = -1;
    let last = -1;
    run.reset();
    for (let i = lineStart; i < lineEnd; ) {
      const u = text.charCodeAt(i);
      if (isSpace(u)) {
        if (u === 9) separators++;
        i++;
        continue;
      }
      const t0 = i;
      while (i < lineEnd && !isSpace(text.charCodeAt(i))) {
        if (text.charCodeAt(i) === 124) separators++;
        i++;
      }
      lineNonSpace += i - t0;
      if (first < 0) first = t0;
      last = i;
      judgeToken(text, t0, i);
      if (tokenWords > 0) {
        wordChars += i - t0;
        run.add(t0, i);
      }
    }
    if (lineNonSpace > 0) {
      nonSpace += lineNonSpace;
      // A line that starts with a timestamp, a date or a number (a log line, a data row) is
      // data around its message: only its runs of words count, never the whole line.
      const tableShaped = separators >= 2 || startsWithNumber(text, first, lineEnd);
      const wordy = !tableShaped && wordChars >= LINE_COVERAGE * lineNonSpace;
      // A prose line, or a short line of one or two words ("Results", "Best regards,").
      if (wordy && (run.prose() || (run.words >= 1 && run.words < MIN_RUN_WORDS))) {
        const seg = { start: first, end: last, whole: true };
        segments.push(seg);
        if (!run.prose()) shortLines.push(seg);
        covered += lineNonSpace;
      } else {
        allLanguage = false;
        const runs: LanguageSegment[] = [];
        cellRuns(text, lineStart, lineEnd, runs);
        let inRuns = 0;
        for (const r of runs) inRuns += countNonSpace(text, r.start, r.end);
        if (runs.length > 0 && inRuns >= MIXED_LINE * lineNonSpace) {
          // Mostly words between the separators (a table row of sentences, a quoted message
          // with its sender): a language line, kept whole with its data.
          // Its runs are read on their own as well: an instruction in a CSV cell reads as one
          // without the row's numbers around it.
          segments.push({ start: first, end: last, whole: true });
          for (const r of runs) segments.push(r);
          covered += lineNonSpace;
        } else {
          for (const r of runs) segments.push(r);
          covered += inRuns;
        }
      }
    }
    lineStart = lineEnd + 1;
  }
  return finish(text, segments, shortLines, allLanguage, nonSpace, covered);
}

/** The structure from one pass's lines and runs: columns of short lines dropped, shares taken. */
function finish(text: string, segments: LanguageSegment[], shortLines: LanguageSegment[], allLanguage: boolean, nonSpace: number, covered: number): TextStructure {
  if (nonSpace === 0) return EMPTY;
  // Short lines are language beside prose ("Results", "Best regards,"), not as a column of one
  // word repeated ("ab\nab\nab..."): with six or more and few distinct, they are data.
  if (shortLines.length >= 6 && distinctLines(text, shortLines) < Math.max(3, shortLines.length * 0.25)) {
    const drop = new Set(shortLines);
    const kept = segments.filter((seg) => !drop.has(seg));
    for (const seg of shortLines) covered -= countNonSpace(text, seg.start, seg.end);
    return { language: kept.length > 0, allLanguage: false, segments: kept, languageShare: covered / nonSpace };
  }
  return { language: segments.length > 0, allLanguage, segments, languageShare: covered / nonSpace };
}

/** The token at `start` is mostly digits (4 or more) with separators: a date, a time, an id. */
function startsWithNumber(text: string, start: number, end: number): boolean {
  let digits = 0;
  let i = start;
  for (; i < end && !isSpace(text.charCodeAt(i)); i++) {
    const u = text.charCodeAt(i);
    if (u >= 48 && u <= 57) digits++;
  }
  return digits >= 4 && digits * 2 >= i - start;
}

function distinctLines(text: string, segs: readonly Span[]): number {
  const seen = new Set<string>();
  for (const s of segs) seen.add(text.slice(s.start, s.end).toLowerCase());
  return seen.size;
}

function countNonSpace(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = start; i < end; i++) if (!isSpace(text.charCodeAt(i))) n++;
  return n;
}

/**
 * The pieces a language scorer should read, each a list of ranges of the text to read joined by
 * newlines: the whole text when every line is language; else first the language lines (data
 * lines between them left out, so a paragraph, an e-mail or a table of sentences reads as it
 * is written), then each run of words found inside a line of data (a CSV cell, a log message)
 * on its own. Empty when there is no language: abstain. Scoring the runs apart keeps a column
 * of short cells or log messages from reading as one strange text.
 */
export function languageUnits(source: string, s: TextStructure): Span[][] {
  if (!s.language) return [];
  if (s.allLanguage) return [[{ start: 0, end: source.length }]];
  const lines: Span[] = [];
  const runs: Span[][] = [];
  for (const seg of s.segments) {
    if (!seg.whole) {
      runs.push([{ start: seg.start, end: seg.end }]);
      continue;
    }
    const last = lines[lines.length - 1];
    if (last !== undefined && onlySpace(source, last.end, seg.start)) last.end = seg.end;
    else lines.push({ start: seg.start, end: seg.end });
  }
  return lines.length > 0 ? [lines, ...runs] : runs;
}

/** The text of a unit (its ranges joined by newlines) and a map of its offsets back to the source. */
export function unitText(source: string, unit: readonly Span[]): { text: string; toSource(start: number, end: number): Span } {
  if (unit.length === 1) {
    const base = unit[0]!;
    const text = base.start === 0 && base.end === source.length ? source : source.slice(base.start, base.end);
    return { text, toSource: (a, b) => ({ start: base.start + a, end: base.start + b }) };
  }
  const at: number[] = [];
  let pos = 0;
  for (const r of unit) {
    at.push(pos);
    pos += r.end - r.start + 1;
  }
  const locate = (p: number, isEnd: boolean): number => {
    let lo = 0;
    let hi = at.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (isEnd ? at[mid]! < p : at[mid]! <= p) lo = mid;
      else hi = mid - 1;
    }
    const r = unit[lo]!;
    return Math.min(r.end, r.start + Math.max(0, p - at[lo]!));
  };
  return {
    text: unit.map((r) => source.slice(r.start, r.end)).join('\n'),
    toSource: (a, b) => {
      const start = locate(a, false);
      return { start, end: Math.max(start, locate(b, true)) };
    },
  };
}

function onlySpace(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const u = text.charCodeAt(i);
    if (!isSpace(u) && u !== 10) return false;
  }
  return true;
}
