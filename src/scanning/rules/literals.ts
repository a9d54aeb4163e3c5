/**
 * The rule prefilter: ONE pass of a literal automaton (Aho-Corasick) over a view's JS string.
 *
 * Every pattern has a literal condition (atoms.ts requiredNeed: an AND/OR tree of literals that
 * every match contains). The automaton finds which of those literals a text holds, and a pattern
 * is a candidate only when its condition is met; the exact RE2 then confirms it. It reads UTF-16
 * code units directly (no UTF-8 conversion, no toLowerCase): a table maps each code unit to its
 * class, the same for every character RE2's case-insensitive matching treats as equal (RE2 is
 * asked, so KELVIN SIGN is 'k' and LONG S is 's'), and every run of whitespace ([\t\n\f\r ],
 * RE2's \s) reads as one ' ' so that `ignore\s+previous` yields the literal "ignore previous".
 * Code units no literal holds share class 0. Transitions sit in one dense table.
 *
 * It replaced 5-6 RE2.Set passes (each ~2 ns per byte plus a fixed cost per call, and a UTF-8
 * conversion of every view): see docs/scanning.md for figures.
 */
import RE2 from 're2';
import type { Need } from './atoms.js';
import { ALNUM, B64, GAP, HEX, LEET, LETTER, ROT13_HASHES, ROT13_MAX, TYPE, WORD, wordHash } from '../normalise/triage.js';

/** Class of every whitespace code unit RE2's \s matches. */
export const SPACE = 1;

/** Literals are cut to their first MAX_SYMBOLS symbols (a text holding a literal holds its
 * prefix: still a superset). Fewer states keep more of the table in cache, which is what
 * the scan's speed depends on (16: 1.4x the states, no faster overall). */
const MAX_SYMBOLS = 12;
/** Characters whose case-fold orbit holds no ASCII character (other scripts) share
 * NON_ASCII_BUCKETS classes by their code: a collision only makes more candidates, and the
 * transition table stays small (classes x states). */
const NON_ASCII_BUCKETS = 8;
/** ASCII punctuation in literals shares this many classes. */
const PUNCT_BUCKETS = 6;

/** A compiled condition: literal ids are indexes into LiteralAutomaton.literals. */
export type IdNeed = true | number | { all: IdNeed[] } | { any: IdNeed[] } | { group: number };

const orbitCache = new Map<number, number[]>();

/**
 * The code points RE2 (flags 'iu') matches with each BMP code point of `chars`, found by asking
 * RE2 once over a string of every BMP character. Cached per process.
 */
function orbits(chars: Iterable<number>): void {
  const todo = [...new Set(chars)].filter((c) => !orbitCache.has(c));
  if (todo.length === 0) return;
  const all = allBmp();
  for (let i = 0; i < todo.length; i += 200) {
    const part = todo.slice(i, i + 200);
    const re = new RE2(part.map((c) => `(${escapeChar(c)})`).join('|'), 'giu');
    const found: number[][] = part.map(() => []);
    let m: RegExpExecArray | null;
    while ((m = re.exec(all)) !== null) {
      const k = m.findIndex((g, j) => j > 0 && g !== undefined) - 1;
      found[k]!.push(m[0].codePointAt(0)!);
    }
    part.forEach((c, k) => orbitCache.set(c, found[k]!.includes(c) ? found[k]! : [c, ...found[k]!]));
  }
}

let bmp: string | null = null;
function allBmp(): string {
  if (bmp === null) {
    const codes: number[] = [];
    for (let c = 0; c < 0x10000; c++) if (c < 0xd800 || c > 0xdfff) codes.push(c);
    let s = '';
    for (let i = 0; i < codes.length; i += 4096) s += String.fromCharCode(...codes.slice(i, i + 4096));
    bmp = s;
  }
  return bmp;
}

function escapeChar(c: number): string {
  return `\\x{${c.toString(16)}}`;
}

/** An astral character is used as its two code units, unless it has case variants. */
function astralCased(cp: number): boolean {
  const s = String.fromCodePoint(cp);
  return s.toLowerCase() !== s || s.toUpperCase() !== s;
}

export class LiteralAutomaton {
  /** code unit -> class (0: in no literal). */
  readonly classOf: Uint16Array;
  readonly classes: number;
  /** trans[state * classes + class] = the next state; state 0 is the root. */
  readonly trans: Uint16Array | Int32Array;
  /** States from this one on end a literal. */
  private readonly firstOut: number;
  /** Per state: the literal ending here (or -1), and the next state on its suffix chain that
   * ends a literal (or -1). */
  private readonly outLit: Int32Array;
  private readonly outNext: Int32Array;
  readonly literals: string[];
  readonly states: number;

  /**
   * `literals` as produced by requiredNeed (lower-case ASCII, other characters as written).
   * Literals the automaton cannot represent exactly (a cased astral character, U+FFFD which RE2
   * also sees for lone surrogates) get id -1 from idOf: callers treat them as always present.
   */
  constructor(literals: Iterable<string>, options: { maxSymbols?: number; buckets?: number } = {}) {
    const maxSymbols = options.maxSymbols ?? MAX_SYMBOLS;
    const buckets = options.buckets ?? NON_ASCII_BUCKETS;
    const lits = [...new Set(literals)];
    const units = new Set<number>();
    for (const l of lits) for (const ch of l) {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x10000) units.add(cp);
    }
    orbits(units);
    const classOf = new Uint16Array(0x10000);
    for (const ws of [9, 10, 12, 13, 32]) classOf[ws] = SPACE;
    // Classes 2..: one per letter (its case-fold orbit: K, KELVIN SIGN and k), one for the
    // digits, then buckets shared by the other ASCII characters and by the other scripts. A
    // shared class only makes more candidates; fewer classes keep the table (states x classes)
    // small enough to stay in cache, which is what the scan's speed depends on.
    const orbitOf = (u: number): number[] => (u >= 0xd800 && u <= 0xdfff ? [u] : (orbitCache.get(u) ?? [u]));
    let next = 2;
    for (const u of [...units].sort((x, y) => x - y)) {
      const orbit = orbitOf(u);
      if (classOf[u] === 0 && orbit.some((o) => (o >= 0x41 && o <= 0x5a) || (o >= 0x61 && o <= 0x7a))) {
        const k = next++;
        for (const o of orbit) classOf[o] = k;
      }
    }
    const digits = next++;
    for (let d = 0x30; d <= 0x39; d++) if (units.has(d)) for (const o of orbitOf(d)) classOf[o] = digits;
    const punctBase = next;
    next += PUNCT_BUCKETS;
    for (const u of units) {
      if (u < 0x80 && classOf[u] === 0) for (const o of orbitOf(u)) if (classOf[o] === 0) classOf[o] = punctBase + (u % PUNCT_BUCKETS);
    }
    const bucketBase = next;
    next += buckets;
    const classFor = (unit: number): number => {
      if (classOf[unit] === 0) {
        const orbit = orbitOf(unit);
        const k = bucketBase + (Math.min(...orbit) % buckets);
        for (const o of orbit) if (classOf[o] === 0) classOf[o] = k;
        classOf[unit] = k;
      }
      return classOf[unit]!;
    };
    // Symbol sequences, whitespace runs collapsed; literals that cannot be represented: null.
    const seqs: Array<number[] | null> = lits.map((l) => {
      const out: number[] = [];
      for (const ch of l) {
        const cp = ch.codePointAt(0)!;
        if (cp === 0xfffd) return null;
        if (cp > 0xffff) {
          if (astralCased(cp)) return null;
          out.push(classFor(ch.charCodeAt(0)), classFor(ch.charCodeAt(1)));
          continue;
        }
        const k = classFor(cp);
        if (k === SPACE && out[out.length - 1] === SPACE) continue;
        out.push(k);
      }
      return out.length > 0 ? out.slice(0, maxSymbols) : null;
    });
    this.classOf = classOf;
    const K = (this.classes = next);
    // Trie.
    const children: Array<Map<number, number>> = [new Map()];
    const ends: number[] = [-1];
    const lastSymbol: number[] = [0];
    this.literals = lits;
    this.idMap = new Map();
    seqs.forEach((seq, id) => {
      if (seq === null) return;
      let s = 0;
      for (const k of seq) {
        let t = children[s]!.get(k);
        if (t === undefined) {
          t = children.length;
          children.push(new Map());
          ends.push(-1);
          lastSymbol.push(k);
          children[s]!.set(k, t);
        }
        s = t;
      }
      if (ends[s] === -1) ends[s] = id;
      else this.alias.set(id, ends[s]!); // same symbols as an earlier literal
      this.idMap.set(lits[id]!, id);
    });
    const n = children.length;
    const trans = new Int32Array((n + 1) * K);
    const fail = new Int32Array(n);
    const outNext = new Int32Array(n + 1).fill(-1);
    const hasOut = new Uint8Array(n + 1);
    // Breadth-first: a state's failure target is complete before its children are built.
    const queue: number[] = [];
    for (const [k, t] of children[0]!) {
      trans[k] = t;
      queue.push(t);
    }
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q]!;
      const f = fail[s]!;
      outNext[s] = ends[f]! >= 0 ? f : outNext[f]!;
      hasOut[s] = ends[s]! >= 0 || outNext[s]! >= 0 ? 1 : 0;
      for (let k = 0; k < K; k++) trans[s * K + k] = trans[f * K + k]!;
      for (const [k, t] of children[s]!) {
        fail[t] = s === 0 ? 0 : trans[f * K + k]!;
        trans[s * K + k] = t;
        queue.push(t);
      }
    }
    // Whitespace runs read as one ' ' without a test per character: a state entered on ' '
    // stays put on more whitespace, and ' ' leading to the root leads instead to state n, the
    // root "just after whitespace" (same moves as the root, but it stays put on whitespace).
    const afterSpace = n;
    for (let k = 0; k < K; k++) trans[afterSpace * K + k] = trans[k]!;
    for (let s = 0; s <= n; s++) {
      if ((s > 0 && s < n && lastSymbol[s] === SPACE) || s === afterSpace) trans[s * K + SPACE] = s;
      else if (trans[s * K + SPACE] === 0) trans[s * K + SPACE] = afterSpace;
    }
    // Renumber breadth-first (the root, the root after whitespace, then by depth): the states
    // text keeps visiting are the shallow ones, and their rows then share cache lines. States
    // ending a literal (their own or on their suffix chain) come last, from `firstOut` on, so
    // the scan tells them by one comparison and entries fit 16 bits up to 65,536 states.
    const bfs = [0, afterSpace, ...queue];
    const order = [...bfs.filter((x) => hasOut[x] !== 1), ...bfs.filter((x) => hasOut[x] === 1)];
    const firstOut = order.findIndex((x) => hasOut[x] === 1);
    const id = new Int32Array(n + 1);
    order.forEach((x, i) => (id[x] = i));
    const table = n + 1 <= 0x10000 ? new Uint16Array(trans.length) : new Int32Array(trans.length);
    const outLit = new Int32Array(n + 1).fill(-1);
    const outNextNew = new Int32Array(n + 1).fill(-1);
    for (let x = 0; x <= n; x++) {
      const row = id[x]! * K;
      for (let k = 0; k < K; k++) table[row + k] = id[trans[x * K + k]!]!;
      if (x < n) outLit[id[x]!] = ends[x]!;
      if (outNext[x]! >= 0) outNextNew[id[x]!] = id[outNext[x]!]!;
    }
    this.firstOut = firstOut < 0 ? n + 1 : firstOut;
    this.reported = new Int32Array(n + 1);
    this.states = n + 1;
    this.trans = table;
    this.outLit = outLit;
    this.outNext = outNextNew;
  }

  private readonly idMap: Map<string, number>;
  /** Per state: the stamp of the last scan that reported it. */
  private readonly reported: Int32Array;
  /** Literal id -> the id of an earlier literal with the same symbols (reported instead). */
  private readonly alias = new Map<number, number>();

  /** The id a literal is reported under, or -1 when it cannot be represented (always true). */
  idOf(literal: string): number {
    const id = this.idMap.get(literal);
    if (id === undefined) return -1;
    return this.alias.get(id) ?? id;
  }

  /** Converts a requiredNeed condition to literal ids. */
  compile(need: Need): IdNeed {
    if (need === true) return true;
    if (typeof need === 'string') {
      const id = this.idOf(need);
      return id < 0 ? true : id;
    }
    if ('all' in need) {
      const xs = need.all.map((x) => this.compile(x)).filter((x) => x !== true);
      return xs.length === 0 ? true : xs.length === 1 ? xs[0]! : { all: xs };
    }
    const xs = need.any.map((x) => this.compile(x));
    if (xs.includes(true)) return true;
    const uniq = xs.filter((x, i) => typeof x !== 'number' || xs.indexOf(x) === i);
    return uniq.length === 1 ? uniq[0]! : { any: uniq };
  }

  /**
   * Marks in `seen` (stamped with `stamp`) every literal `text` contains, and appends each one
   * once to `found`.
   */
  scan(text: string, seen: Int32Array, stamp: number, found: number[]): void {
    const classOf = this.classOf;
    const trans = this.trans;
    const reported = this.reported;
    const K = this.classes;
    const firstOut = this.firstOut;
    let s = 0;
    const n = text.length;
    for (let i = 0; i < n; i++) {
      s = trans[s * K + classOf[text.charCodeAt(i)]!]!;
      if (s >= firstOut) {
        // Common words end literals over and over: report each state once per text.
        if (reported[s] !== stamp) {
          reported[s] = stamp;
          this.report(s, seen, stamp, found);
        }
      }
    }
  }

  /**
   * scan() and the normaliser's triage check (triage.ts triageMaybe) in one loop over the
   * original text: returns triageMaybe(text). The triage part below is triageMaybe step for
   * step (tests compare the two); once it answers true, the rest of the text is only scanned.
   */
  scanTriage(text: string, seen: Int32Array, stamp: number, found: number[]): boolean {
    const classOf = this.classOf;
    const trans = this.trans;
    const reported = this.reported;
    const K = this.classes;
    const firstOut = this.firstOut;
    let s = 0;
    const n = text.length;
    let b64 = 0;
    let hex = 0;
    let prev = 0;
    let prev2 = 0;
    let lastE = -100;
    let lastE2 = -100;
    let hash = 0;
    let len = 0;
    let prevRot = false;
    let maybe = false;
    let i = 0;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      s = trans[s * K + classOf[c]!]!;
      if (s >= firstOut) {
        if (reported[s] !== stamp) {
          reported[s] = stamp;
          this.report(s, seen, stamp, found);
        }
      }
      if (c >= 128) {
        maybe = true;
        break;
      }
      const t = TYPE[c]!;
      if ((t & B64) !== 0) {
        if (++b64 >= 16) {
          maybe = true;
          break;
        }
      } else b64 = 0;
      if ((t & HEX) !== 0) {
        if (++hex >= 16) {
          maybe = true;
          break;
        }
      } else if (c !== 32 && c !== 58 && c !== 44) hex = 0;
      if (c === 37 && i + 2 < n) {
        const a = text.charCodeAt(i + 1);
        const b = text.charCodeAt(i + 2);
        if (a < 128 && b < 128 && (TYPE[a]! & HEX) !== 0 && (TYPE[b]! & HEX) !== 0) {
          maybe = true;
          break;
        }
      } else if (c === 92 && i + 1 < n && (text.charCodeAt(i + 1) | 32) === 120) {
        maybe = true;
        break;
      }
      if ((t & LETTER) !== 0 && (prev & LEET) !== 0) {
        maybe = true;
        break;
      }
      if ((t & WORD) !== 0) {
        hash = wordHash(hash, c);
        len++;
        prev2 = prev;
        prev = t;
        continue;
      }
      if ((prev & ALNUM) !== 0 && (prev2 & GAP) !== 0) {
        if (i - 1 - lastE <= 4 && lastE - lastE2 <= 4) {
          maybe = true;
          break;
        }
        lastE2 = lastE;
        lastE = i - 1;
      }
      if (len > 0) {
        const rot = len <= ROT13_MAX && ROT13_HASHES.has(hash);
        if (rot && prevRot) {
          maybe = true;
          break;
        }
        prevRot = rot;
        hash = 0;
        len = 0;
      }
      prev2 = prev;
      prev = t;
    }
    if (maybe) {
      for (i++; i < n; i++) {
        s = trans[s * K + classOf[text.charCodeAt(i)]!]!;
        if (s >= firstOut) {
          if (reported[s] !== stamp) {
            reported[s] = stamp;
            this.report(s, seen, stamp, found);
          }
        }
      }
      return true;
    }
    // The end of the text ends the last word.
    if ((prev & ALNUM) !== 0 && (prev2 & GAP) !== 0 && n - 1 - lastE <= 4 && lastE - lastE2 <= 4) return true;
    return len > 0 && prevRot && len <= ROT13_MAX && ROT13_HASHES.has(hash);
  }

  private report(s: number, seen: Int32Array, stamp: number, found: number[]): void {
    for (let t = this.outLit[s]! >= 0 ? s : this.outNext[s]!; t >= 0; t = this.outNext[t]!) {
      const id = this.outLit[t]!;
      if (seen[id] !== stamp) {
        seen[id] = stamp;
        found.push(id);
      }
    }
  }
}

/** Whether `need` holds given the literals marked in `seen` and the groups marked in `groups`
 * with `stamp` (see groupNeeds). */
export function holds(need: IdNeed, seen: Int32Array, groups: Int32Array, stamp: number): boolean {
  if (need === true) return true;
  if (typeof need === 'number') return seen[need] === stamp;
  if ('group' in need) return groups[need.group] === stamp;
  if ('all' in need) {
    for (const x of need.all) if (!holds(x, seen, groups, stamp)) return false;
    return true;
  }
  for (const x of need.any) if (holds(x, seen, groups, stamp)) return true;
  return false;
}

/**
 * Replaces every "one of these literals" node by a group: when a literal turns up, the groups
 * holding it are marked once, and judging a condition then looks at a few group marks instead
 * of dozens of literals. Identical groups are shared.
 */
export function groupNeeds(needs: IdNeed[], literals: number): { needs: IdNeed[]; byLiteral: number[][]; count: number } {
  const byKey = new Map<string, number>();
  const byLiteral: number[][] = Array.from({ length: literals }, () => []);
  const walk = (n: IdNeed): IdNeed => {
    if (n === true || typeof n === 'number' || 'group' in n) return n;
    if ('all' in n) return { all: n.all.map(walk) };
    if (n.any.length > 1 && n.any.every((x) => typeof x === 'number')) {
      const ids = [...new Set(n.any as number[])].sort((a, b) => a - b);
      const key = ids.join(',');
      let g = byKey.get(key);
      if (g === undefined) {
        g = byKey.size;
        byKey.set(key, g);
        for (const id of ids) byLiteral[id]!.push(g);
      }
      return { group: g };
    }
    return { any: n.any.map(walk) };
  };
  return { needs: needs.map(walk), byLiteral, count: byKey.size };
}

/** Literal strings of a requiredNeed condition. */
export function needLiterals(need: Need, out: string[] = []): string[] {
  if (need === true) return out;
  if (typeof need === 'string') out.push(need);
  else for (const x of 'all' in need ? need.all : need.any) needLiterals(x, out);
  return out;
}
