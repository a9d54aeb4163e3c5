/**
 * Rule prefilter forms as sequences of words, for the word-level prefilter (issue 29).
 *
 * Most prefilter forms (segment.ts) are short alternations of words joined by whitespace:
 * `\b(ignore|disregard)\s+(all\s+)?(previous|prior)\s+(instructions?|rules)`. A regex engine
 * pays for such a form at every byte; seen as words it is a handful of table lookups per word.
 * This module turns a form into SLOT SEQUENCES: each slot is one token of the text (a run of
 * word characters, or one punctuation character), given as the exact words it may be, the
 * prefixes it may start with, or any word at all. A text whose token stream contains one of a
 * form's sequences is a candidate for that form; the exact pattern confirms every candidate, as
 * before.
 *
 * The one property that matters: the sequences are a SUPERSET of the form on all-ASCII text
 * (RE2 'iu'). Every match of the form, tokenised the way the scanner tokenises text
 * (tokenise()), contains one of the sequences. So:
 *  - tokens are runs of RE2's `\w` ([0-9A-Za-z_]) or single other characters; control
 *    characters and spaces separate tokens and are never tokens;
 *  - `\s` and literal spaces separate; `\s*` between two word characters is both "separated"
 *    and "joined" (two sequences);
 *  - a word whose end the form leaves open (`distribut\w{0,4}`, a last word with no `\b` after
 *    it) is a PREFIX slot; a word part the form leaves open (`\w+ing`, `[a-z]`) is ANY;
 *  - a first word with no boundary before it (it could end a longer text word) is dropped, and
 *    so are ANY slots at either end; a form left with nothing is not compiled;
 *  - anything else this parser does not understand (`.`, negated classes, unbounded repeats of
 *    groups, lookaround, non-ASCII) leaves the form to the byte-level prefilter.
 * The always-on differential test (test/scanning/rules/word-prefilter.test.ts) holds the
 * property against RE2 on the rule tests, the development set and generated texts.
 */

import { isCommonWord } from './atoms.js';
import { matchesAscii } from './prefilter.js';

/** One token of a sequence: an exact word (or punctuation character), a word prefix, or any word. */
export interface Slot {
  exact: string[];
  prefix: string[];
  any: boolean;
}

export type WordForm = Slot[][];

class Unsupported extends Error {}

const MAX_VARIANTS = 256;
const MAX_STRINGS = 256;
const MAX_REPEAT = 4;

// ---------------------------------------------------------------------------------------------
// Parsing (a subset of RE2 syntax; anything else throws Unsupported).

type Node =
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; branches: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number }
  | { t: 'char'; c: string }
  | { t: 'class'; words: string[]; punct: string[]; space: boolean; anyWord: boolean }
  | { t: 'bound' }
  /** A character no all-ASCII text holds (and no ASCII character matches case-insensitively). */
  | { t: 'never' }
  /** Something the reader does not model (`.`, a negated class, `\S`): a form holding one is
   * read around it (a window of the items beside it), never through it. */
  | { t: 'gap'; why: string };

const isWordChar = (c: string): boolean => /^[0-9a-z_]$/i.test(c);
const isSpaceChar = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

class Parser {
  i = 0;
  constructor(readonly p: string) {}

  parseAlt(): Node {
    const branches: Node[] = [this.parseSeq()];
    while (this.p[this.i] === '|') {
      this.i++;
      branches.push(this.parseSeq());
    }
    return branches.length === 1 ? branches[0]! : { t: 'alt', branches };
  }

  parseSeq(): Node {
    const items: Node[] = [];
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      let atom = this.parseAtom();
      if (atom === null) continue;
      atom = this.parseQuantifier(atom);
      items.push(atom);
    }
    return { t: 'seq', items };
  }

  parseQuantifier(atom: Node): Node {
    const q = this.p[this.i];
    let min = 1;
    let max = 1;
    if (q === '*' || q === '+' || q === '?') {
      this.i++;
      min = q === '+' ? 1 : 0;
      max = q === '?' ? 1 : Infinity;
    } else if (q === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i, this.i + 24));
      if (m === null) throw new Unsupported('brace');
      this.i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
    } else return atom;
    if (this.p[this.i] === '?') this.i++; // lazy: same language
    return { t: 'rep', node: atom, min, max };
  }

  /** null for things that match nothing and constrain nothing we use (inline flags). */
  parseAtom(): Node | null {
    const p = this.p;
    const c = p[this.i]!;
    if (c === '(') {
      this.i++;
      if (p[this.i] === '?') {
        const flags = /^\?([imsU-]*)(:|\))/.exec(p.slice(this.i));
        const named = /^\?P?<[A-Za-z_]\w*>/.exec(p.slice(this.i));
        if (flags !== null) {
          // Flags change nothing here: case is folded anyway ((?-i) makes a smaller language,
          // still inside the sequences), and no form this accepts has `.` or anchors per line.
          this.i += flags[0].length;
          if (flags[2] === ')') return null;
        } else if (named !== null) this.i += named[0].length;
        else throw new Unsupported('group kind');
      }
      const inner = this.parseAlt();
      if (p[this.i] !== ')') throw new Unsupported('unclosed group');
      this.i++;
      return inner;
    }
    if (c === '[') {
      const start = this.i;
      try {
        return this.parseClass();
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        this.i = start;
        this.skipClass();
        return { t: 'gap', why: err.message };
      }
    }
    if (c === '.') {
      this.i++;
      return { t: 'gap', why: 'dot' };
    }
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'bound' };
    }
    if (c === '\\') {
      const start = this.i;
      try {
        return this.parseEscape(false);
      } catch (err) {
        if (!(err instanceof Unsupported) || p[start + 1] === undefined || p[start + 1] === 'Q') throw err;
        this.i = start + 2;
        const e = p[start + 1]!;
        if ((e === 'x' || e === 'p' || e === 'P') && p[this.i] === '{') {
          const close = p.indexOf('}', this.i);
          if (close < 0) throw err;
          this.i = close + 1;
        } else if (e === 'x') this.i += 2;
        else if (e === 'p' || e === 'P') this.i += 1;
        return { t: 'gap', why: err.message };
      }
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') throw new Unsupported('bare quantifier');
    const cp = p.codePointAt(this.i)!;
    this.i += cp > 0xffff ? 2 : 1;
    if (cp > 0x7f) {
      if (matchesAscii(cp)) return { t: 'gap', why: 'non-ASCII character that folds to ASCII' };
      return { t: 'never' };
    }
    return { t: 'char', c: c.toLowerCase() };
  }

  /** An escape; inClass: returns a class part, not a node. */
  parseEscape(inClass: boolean): Node {
    const e = this.p[this.i + 1];
    if (e === undefined) throw new Unsupported('trailing backslash');
    this.i += 2;
    switch (e) {
      case 's':
        return { t: 'class', words: [], punct: [], space: true, anyWord: false };
      case 'w':
      case 'd':
        return { t: 'class', words: [], punct: [], space: false, anyWord: true };
      case 'b':
        if (inClass) throw new Unsupported('\\b in class');
        return { t: 'bound' };
      case 'A':
      case 'z':
        return { t: 'bound' };
      case 'n':
      case 'r':
      case 't':
      case 'f':
      case 'v':
        return { t: 'class', words: [], punct: [], space: true, anyWord: false };
      case 'p':
        // \pL, \p{L}: on all-ASCII text, a letter: some word character.
        if (this.p[this.i] === 'L') {
          this.i++;
          return { t: 'class', words: [], punct: [], space: false, anyWord: true };
        }
        if (this.p.startsWith('{L}', this.i)) {
          this.i += 3;
          return { t: 'class', words: [], punct: [], space: false, anyWord: true };
        }
        throw new Unsupported('\\p');
      case 'x':
      case 'P':
      case 'S':
      case 'W':
      case 'D':
      case 'B':
      case 'Q':
      case 'C':
        throw new Unsupported(`\\${e}`);
      default:
        if (/[0-9a-zA-Z]/.test(e)) throw new Unsupported(`\\${e}`);
        return { t: 'char', c: e };
    }
  }

  /** Moves past the class that starts at this.i (`[`), as RE2 reads it: a `]` right after `[`
   * or `[^` is a member, escapes are skipped. */
  skipClass(): void {
    const p = this.p;
    this.i++;
    if (p[this.i] === '^') this.i++;
    if (p[this.i] === ']') this.i++;
    while (this.i < p.length && p[this.i] !== ']') {
      if (p[this.i] === '\\') this.i++;
      this.i++;
    }
    if (this.i >= p.length) throw new Unsupported('unclosed class');
    this.i++;
  }

  parseClass(): Node {
    const p = this.p;
    this.i++;
    if (p[this.i] === '^') throw new Unsupported('negated class');
    const words = new Set<string>();
    const punct = new Set<string>();
    let space = false;
    let anyWord = false;
    let first = true;
    while (this.i < p.length && (p[this.i] !== ']' || first)) {
      first = false;
      let lo: string;
      if (p[this.i] === '\\') {
        const part = this.parseEscape(true);
        if (part.t === 'class') {
          space ||= part.space;
          anyWord ||= part.anyWord;
          continue;
        }
        if (part.t !== 'char') throw new Unsupported('class escape');
        lo = part.c;
      } else {
        lo = String.fromCodePoint(p.codePointAt(this.i)!);
        this.i += lo.length;
      }
      let hi = lo;
      if (p[this.i] === '-' && p[this.i + 1] !== ']' && p[this.i + 1] !== undefined) {
        this.i++;
        if (p[this.i] === '\\') {
          const part = this.parseEscape(true);
          if (part.t !== 'char') throw new Unsupported('class range');
          hi = part.c;
        } else {
          hi = String.fromCodePoint(p.codePointAt(this.i)!);
          this.i += hi.length;
        }
      }
      const a = lo.codePointAt(0)!;
      const b = hi.codePointAt(0)!;
      if (b > 0x7f) {
        // Members no ASCII text can hold drop out, unless one matches an ASCII character
        // case-insensitively (KELVIN SIGN, LONG S).
        if (b - Math.max(a, 0x80) > 512) throw new Unsupported('wide non-ASCII class');
        for (let k = Math.max(a, 0x80); k <= b; k++) if (matchesAscii(k)) throw new Unsupported('non-ASCII class member that folds to ASCII');
        if (a > 0x7f) continue;
      }
      if (b > 0x7f) throw new Unsupported('class range across ASCII');
      if (b - a > 8) {
        // A wide range: letters or digits only make "some word character".
        for (let k = a; k <= b; k++) {
          const ch = String.fromCharCode(k);
          if (isWordChar(ch)) anyWord = true;
          else if (isSpaceChar(ch)) space = true;
          else throw new Unsupported('wide class');
        }
        continue;
      }
      for (let k = a; k <= b; k++) {
        const ch = String.fromCharCode(k).toLowerCase();
        if (isWordChar(ch)) words.add(ch);
        else if (isSpaceChar(ch) || k < 0x20) space = true;
        else punct.add(ch);
      }
    }
    if (p[this.i] !== ']') throw new Unsupported('unclosed class');
    this.i++;
    if (words.size === 0 && punct.size === 0 && !space && !anyWord) return { t: 'never' };
    return { t: 'class', words: [...words], punct: [...punct], space, anyWord };
  }
}

// ---------------------------------------------------------------------------------------------
// Expansion into flat variants of pieces.

type Piece =
  | { k: 'w'; s: string[] } // word characters, one of these strings
  | { k: 'p'; s: string[] } // one punctuation character, one of these
  | { k: 'sep' } // one or more separators (space, control)
  | { k: 'osep' } // zero or more separators
  | { k: 'b' } // a word boundary or anchor
  | { k: 'wild' } // one or more unknown word characters
  | { k: 'tail' }; // zero or more unknown word characters

type Variant = Piece[];

function product(a: string[], b: string[]): string[] {
  if (a.length * b.length > MAX_STRINGS) throw new Unsupported('too many strings');
  const out: string[] = [];
  for (const x of a) for (const y of b) out.push(x + y);
  return out;
}

function concat(a: Variant, b: Variant): Variant {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const last = a[a.length - 1]!;
  const head = b[0]!;
  if (last.k === 'w' && head.k === 'w') return [...a.slice(0, -1), { k: 'w', s: product(last.s, head.s) }, ...b.slice(1)];
  if ((last.k === 'sep' || last.k === 'osep') && (head.k === 'sep' || head.k === 'osep')) {
    const merged: Piece = last.k === 'sep' || head.k === 'sep' ? { k: 'sep' } : { k: 'osep' };
    return [...a.slice(0, -1), merged, ...b.slice(1)];
  }
  return [...a, ...b];
}

function cross(xs: Variant[], ys: Variant[]): Variant[] {
  if (xs.length * ys.length > MAX_VARIANTS) throw new Unsupported('too many variants');
  const out: Variant[] = [];
  for (const x of xs) for (const y of ys) out.push(concat(x, y));
  return out;
}

function single(v: Variant[]): Piece | null {
  return v.length === 1 && v[0]!.length === 1 ? v[0]![0]! : null;
}

function expand(n: Node): Variant[] {
  switch (n.t) {
    case 'char':
      if (isWordChar(n.c)) return [[{ k: 'w', s: [n.c] }]];
      if (isSpaceChar(n.c)) return [[{ k: 'sep' }]];
      if (n.c.charCodeAt(0) < 0x20) return [[{ k: 'sep' }]];
      return [[{ k: 'p', s: [n.c] }]];
    case 'bound':
      return [[{ k: 'b' }]];
    case 'never':
      return [];
    case 'gap':
      throw new Unsupported(n.why);
    case 'class': {
      const out: Variant[] = [];
      if (n.anyWord) out.push([{ k: 'wild' }]);
      else if (n.words.length > 0) out.push([{ k: 'w', s: n.words }]);
      if (n.punct.length > 0) out.push([{ k: 'p', s: n.punct }]);
      if (n.space) out.push([{ k: 'sep' }]);
      if (out.length === 0) throw new Unsupported('empty class');
      return out;
    }
    case 'seq': {
      let acc: Variant[] = [[]];
      for (const it of n.items) acc = cross(acc, expand(it));
      return acc;
    }
    case 'alt': {
      const all: Variant[] = [];
      const parts = n.branches.map(expand);
      // Alternations of plain words (or of punctuation) stay one piece: no variant per word.
      const pieces = parts.map(single);
      if (pieces.every((p) => p !== null && p.k === 'w')) return [[{ k: 'w', s: [...new Set(pieces.flatMap((p) => (p as { s: string[] }).s))] }]];
      if (pieces.every((p) => p !== null && p.k === 'p')) return [[{ k: 'p', s: [...new Set(pieces.flatMap((p) => (p as { s: string[] }).s))] }]];
      for (const v of parts) all.push(...v);
      if (all.length > MAX_VARIANTS) throw new Unsupported('too many variants');
      return all;
    }
    case 'rep': {
      const inner = expand(n.node);
      const one = single(inner);
      if (n.max > 1 && one !== null) {
        // Runs of one kind of character.
        if (one.k === 'sep') return n.min === 0 ? [[{ k: 'osep' }]] : [[one]];
        if (one.k === 'wild' || (one.k === 'w' && n.node.t === 'class')) return n.min === 0 ? [[{ k: 'tail' }]] : [[{ k: 'wild' }]];
      }
      if (n.max > MAX_REPEAT) throw new Unsupported('long repeat');
      if (n.max === 1 && one !== null && one.k === 'sep' && n.min === 0) return [[{ k: 'osep' }]];
      const out: Variant[] = [];
      let acc: Variant[] = [[]];
      for (let k = 0; k <= n.max; k++) {
        if (k >= n.min) out.push(...acc);
        if (k < n.max) acc = cross(acc, inner);
        if (out.length > MAX_VARIANTS) throw new Unsupported('too many variants');
      }
      return out;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Tokenising a variant into slots.

interface Building {
  strings: string[];
  any: boolean;
  /** The word may go on past its strings (\w* after them). */
  open: boolean;
  leftBound: boolean;
}

/** Longest word the matcher keeps (native/text/words.c MAX_WORD). */
const MAX_WORD = 64;

function slotOf(b: Building, rightBound: boolean): Slot {
  if (b.any || b.strings.includes('')) return { exact: [], prefix: [], any: true };
  if (b.strings.some((x) => x.length > MAX_WORD)) throw new Unsupported('a word longer than 64 characters');
  if (b.open || !rightBound) return { exact: [], prefix: b.strings, any: false };
  return { exact: b.strings, prefix: [], any: false };
}

const wordish = (p: Piece | undefined): boolean => p !== undefined && (p.k === 'w' || p.k === 'wild' || p.k === 'tail');

/** Optional separators: between two word pieces they mean "one token or two" (two variants);
 * at the end of a variant, nothing (a word before them may go on); anywhere else they
 * tokenise the same either way. */
function resolveOptionalSeps(v: Variant): Variant[] {
  let out: Variant[] = [[]];
  for (let i = 0; i < v.length; i++) {
    const p = v[i]!;
    if (p.k !== 'osep') out = out.map((x) => concat(x, [p]));
    else if (wordish(v[i - 1]) && wordish(v[i + 1])) {
      out = [...out.map((x) => concat(x, [{ k: 'sep' }])), ...out];
      if (out.length > MAX_VARIANTS) throw new Unsupported('too many variants');
    } else if (i + 1 < v.length) out = out.map((x) => concat(x, [{ k: 'sep' }]));
    // Last: "nothing" is the weaker reading (the word before it stays open).
  }
  return out;
}

/** Slots of one variant, or null when it cannot be tokenised. The first slot's left boundary
 * is reported so the caller can drop a slot that may be the tail of a longer word. */
function tokens(v: Variant): { slots: Slot[]; firstLeftBound: boolean } | null {
  const slots: Slot[] = [];
  let firstLeftBound = true;
  let cur: Building | null = null;
  // Whether the position before the next piece is a token boundary.
  let bounded = false;
  const close = (rightBound: boolean): void => {
    if (cur === null) return;
    if (slots.length === 0) firstLeftBound = cur.leftBound;
    slots.push(slotOf(cur, rightBound));
    cur = null;
  };
  for (const piece of v) {
    switch (piece.k) {
      case 'w':
        if (cur === null) cur = { strings: piece.s, any: false, open: false, leftBound: bounded };
        else if (cur.open) cur.any = true;
        else if (!cur.any) cur.strings = product(cur.strings, piece.s);
        bounded = false;
        break;
      case 'wild':
      case 'tail':
        if (cur === null) {
          if (piece.k === 'tail') return null; // may be empty: cannot tell where a token is
          cur = { strings: [''], any: true, open: false, leftBound: bounded };
        } else cur.open = true;
        bounded = false;
        break;
      case 'p':
        // A punctuation token is bounded on both sides by itself (firstLeftBound stays true).
        close(true);
        slots.push({ exact: piece.s, prefix: [], any: false });
        bounded = true;
        break;
      case 'sep':
      case 'osep':
        close(true);
        bounded = true;
        break;
      case 'b':
        close(true);
        bounded = true;
        break;
    }
  }
  close(false);
  return { slots, firstLeftBound };
}

function trim(slots: Slot[], firstLeftBound: boolean): Slot[] | null {
  let s = slots;
  if (s.length > 0 && !firstLeftBound) s = s.slice(1);
  let a = 0;
  let b = s.length;
  while (a < b && s[a]!.any) a++;
  while (b > a && s[b - 1]!.any) b--;
  s = s.slice(a, b);
  return s.length === 0 ? null : s;
}

/** A form read as words: `partial` when only a part of it was (a window of its items, a part
 * of each branch): a looser superset, whose candidates are worth testing with the form itself
 * before the exact pattern runs. */
export interface WordReading {
  sequences: WordForm;
  partial: boolean;
}

/** The word sequences of a prefilter form (RE2 'iu' syntax), or null when the form must stay
 * with the byte-level prefilter. */
export function wordForm(form: string): WordForm | null {
  return readWords(form)?.sequences ?? null;
}

/** wordForm() with whether the reading is partial. */
export function readWords(form: string): WordReading | null {
  let r = known.get(form);
  if (r === undefined) {
    // Unsupported is thrown often while windows are tried: no stack traces for it.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      r = readOrReason(form);
    } finally {
      Error.stackTraceLimit = limit;
    }
    known.set(form, r);
    if (known.size > 4096) known.delete(known.keys().next().value!);
  }
  return typeof r === 'string' ? null : r;
}

/** Forms already read in this thread: targets share most forms, reloads most of the rest. */
const known = new Map<string, WordReading | string>();

/** wordForm(), or why the form stays byte-level (for the tests and the bench). */
export function wordFormOrReason(form: string): WordForm | string {
  const r = readOrReason(form);
  return typeof r === 'string' ? r : r.sequences;
}

function readOrReason(form: string): WordReading | string {
  let node: Node;
  try {
    const parser = new Parser(form);
    node = parser.parseAlt();
    if (parser.i !== form.length) return 'unparsed tail';
  } catch (err) {
    if (err instanceof Unsupported) return err.message;
    throw err;
  }
  const whole = sequencesOf(node);
  if (typeof whole !== 'string') return { sequences: whole, partial: false };
  const part = approximate(node, false);
  return part === null ? `${whole}; no selective part` : { sequences: part, partial: true };
}

/**
 * A superset of `node` as words when the whole does not fit: an alternation by the union of its
 * branches' supersets; a sequence by its most selective window of items (every match of the
 * sequence contains a match of any contiguous run of its items), or by one item's own superset;
 * a repeat of at least one by its body's. `leftBound`: a word boundary is known before the node
 * (kept when a window starts right after a `\b` or a space). Null: nothing selective enough.
 */
function approximate(node: Node, leftBound: boolean): WordForm | null {
  const whole = sequencesOf(node, leftBound);
  if (typeof whole !== 'string') return Math.ceil(score(whole)) >= MIN_WINDOW_SCORE ? whole : null;
  if (node.t === 'alt') {
    const out: WordForm = [];
    for (const b of node.branches) {
      const part = approximate(b, leftBound);
      if (part === null) return null;
      out.push(...part);
    }
    return out;
  }
  if (node.t === 'rep') return node.min >= 1 ? approximate(node.node, false) : null;
  if (node.t !== 'seq') return null;
  const items = node.items;
  const boundBefore = (i: number): boolean => (i === 0 ? leftBound : isBoundary(items[i - 1]!));
  let best: WordForm | null = null;
  let bestScore = 0;
  const consider = (wf: WordForm | null): void => {
    if (wf === null) return;
    const sc = score(wf);
    if (sc > bestScore) {
      best = wf;
      bestScore = sc;
    }
  };
  for (let i = 0; i < items.length; i++) {
    for (let j = items.length; j > i; j--) {
      const got = sequencesOf({ t: 'seq', items: items.slice(i, j) }, boundBefore(i));
      if (typeof got === 'string') continue;
      consider(got);
      break; // shorter windows from i only lose slots
    }
    if (items[i]!.t === 'alt' || items[i]!.t === 'seq' || items[i]!.t === 'rep') consider(approximate(items[i]!, boundBefore(i)));
  }
  return best !== null && Math.ceil(bestScore) >= MIN_WINDOW_SCORE ? best : null;
}

/** A node that puts a token boundary after it: `\b`, an anchor, a space. */
function isBoundary(n: Node): boolean {
  if (n.t === 'bound') return true;
  if (n.t === 'class') return n.space && !n.anyWord && n.words.length === 0;
  if (n.t === 'rep') return n.min >= 1 && isBoundary(n.node);
  return false;
}

/** A window must keep at least this many specific (not "any") slots in its weakest sequence. */
const MIN_WINDOW_SCORE = 2;

/** How selective the weakest sequence is, a little less for each variant: a slot counts 2
 * when all its words are rare (not among atoms.ts' common words, five letters or more, or a
 * prefix of that length), 1 otherwise, 0 for any word. */
function score(wf: WordForm): number {
  let min = Infinity;
  for (const seq of wf) {
    let sc = 0;
    for (const slot of seq) if (!slot.any) sc += [...slot.exact, ...slot.prefix].every((w) => w.length >= 5 && !isCommonWord(w)) ? 2 : 1;
    min = Math.min(min, sc);
  }
  return min - wf.length / 10_000;
}

function sequencesOf(node: Node, leftBound = false): WordForm | string {
  try {
    const seen = new Set<string>();
    const out: WordForm = [];
    for (const raw of expand(leftBound ? { t: 'seq', items: [{ t: 'bound' }, node] } : node)) {
      for (const v of resolveOptionalSeps(raw)) {
        const t = tokens(v);
        if (t === null) return 'a word of unknown extent';
        const slots = trim(t.slots, t.firstLeftBound);
        // A variant with no slot at all matches anywhere: the form is not selective as words.
        if (slots === null) return 'a variant with no word';
        const key = slots.map(slotKey).join(' ');
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(slots);
        if (out.length > MAX_VARIANTS) throw new Unsupported('too many variants');
      }
    }
    return out.length === 0 ? 'no variant' : mergeSequences(out);
  } catch (err) {
    if (err instanceof Unsupported) return err.message;
    throw err;
  }
}

const slotKeys = new WeakMap<Slot, string>();
function slotKey(s: Slot): string {
  let k = slotKeys.get(s);
  if (k === undefined) {
    // Strings keep the order expansion gave them: equal slots from one form get equal keys.
    k = s.any ? '*' : `${s.exact.join(',')}/${s.prefix.join(',')}`;
    slotKeys.set(s, k);
  }
  return k;
}

/** Sequences of the same length that differ in one slot become one sequence whose slot
 * accepts what either did: the same language, fewer positions (`instructions?` is one slot,
 * not two sequences). Any-word slots do not merge with others. */
function mergeSequences(seqs: WordForm): WordForm {
  if (seqs.length < 2) return seqs;
  let cur = seqs;
  for (let changed = true; changed; ) {
    changed = false;
    const maxLen = Math.max(...cur.map((q) => q.length));
    for (let k = 0; k < maxLen; k++) {
      const groups = new Map<string, Slot[][]>();
      const order: string[] = [];
      for (const q of cur) {
        let key: string;
        if (k < q.length && !q[k]!.any) {
          const keys = q.map(slotKey);
          keys[k] = '#';
          key = `${q.length}|${keys.join(' ')}`;
        } else key = `!${order.length}`;
        let g = groups.get(key);
        if (g === undefined) {
          groups.set(key, (g = []));
          order.push(key);
        }
        g.push(q);
      }
      if (order.length === cur.length) continue;
      changed = true;
      cur = order.map((key) => {
        const g = groups.get(key)!;
        if (g.length === 1) return g[0]!;
        const slot: Slot = {
          exact: [...new Set(g.flatMap((q) => q[k]!.exact))],
          prefix: [...new Set(g.flatMap((q) => q[k]!.prefix))],
          any: false,
        };
        return g[0]!.map((s, i) => (i === k ? slot : s));
      });
    }
  }
  return cur;
}

/** True when `c` (a UTF-16 code unit of all-ASCII text) joins a word token. */
export function isWordCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** The tokens of all-ASCII text as the word prefilter sees them (lower-case), for tests and
 * the TypeScript matcher. */
export function tokenise(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c <= 32 || c === 127) {
      i++;
      continue;
    }
    if (isWordCode(c)) {
      const s = i;
      while (i < n && isWordCode(text.charCodeAt(i))) i++;
      out.push(text.slice(s, i).toLowerCase());
    } else {
      out.push(text[i]!);
      i++;
    }
  }
  return out;
}
