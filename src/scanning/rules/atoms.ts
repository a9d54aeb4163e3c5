/**
 * Required literals of a rule pattern, for the RE2.Set prefilter (the idea of RE2's FilteredRE2,
 * which node-re2 does not expose). For `\b(reveal|print)\b[^.]{0,40}\bsystem\s+prompt` every
 * match contains "system" or "prompt"... the analysis picks the most selective such set, here
 * {"prompt"} or {"system"}, and the prefilter becomes the literal alternation `(?:system)`.
 *
 * A set of literal alternations is what a DFA handles best (Aho-Corasick-like, few states), so
 * the prefilter stays fast however many rules there are. It is a superset test: the exact
 * pattern (its own RE2) confirms every candidate. Anything the small parser below does not
 * understand returns null and the caller falls back to the relaxed pattern.
 *
 * Parsed subset of RE2 syntax: literals and escapes, . and classes, groups ((?:...), (?i:...),
 * (?P<n>...), (?<n>...)), inline flags, alternation, * + ? {m,n} (lazy too), anchors.
 */

const MAX_EXACT = 64;
const MAX_LEN = 48;
/** Atoms shorter than this match too often to be worth a prefilter entry. */
export const MIN_ATOM_LENGTH = 3;

interface Info {
  /** Every string the node can match (lower-cased ASCII), when few and short; else null. */
  exact: string[] | null;
  /** One of these occurs in every match; null when nothing is known. */
  req: string[] | null;
  /** Rough share of texts containing a match (see literalShare); absent: from `exact`, or 1. */
  p?: number;
}

/** Words so frequent in prompts, chats and documents (LLM traffic included) that a literal
 * needing only one of them matches a large share of texts. */
const COMMON = new Set(
  ('a an the and or but if of to in on at by for from with into onto over under about above below after before ' +
    'is are was were be been being am do does did have has had can could will would shall should may might must ' +
    'i you he she it we they me him her us them my your his its our their this that these those there here ' +
    'what which who whom whose when where why how all any each every some no not only just also more most other ' +
    'such than then now so very too new one two first last next same own up out off down again once as ' +
    'add put get set use make take give tell show say see look find write read print list send run let keep ' +
    'please note text data file page user users email message time help need want know like way work part ' +
    'include information content document question answer response request following ' +
    'prompt prompts instruction instructions rule rules system model ai assistant chat task code output input').split(' '),
);

/** One of the words so frequent that a literal needing only it selects little. */
export function isCommonWord(w: string): boolean {
  return COMMON.has(w);
}

/** Rough share of texts that contain `s` (case-insensitive): a guess from frequency class and
 * length, good enough to rank prefilter pieces. */
export function literalShare(s: string): number {
  const n = [...s].length;
  if (n === 0) return 1;
  if (COMMON.has(s)) return 0.4;
  if (n === 1) return 0.5;
  if (n === 2) return 0.3;
  return Math.pow(0.25, n - 2);
}

/** Share of texts containing any of `xs`: 1 - prod(1 - share). */
function shareOf(xs: string[]): number {
  let none = 1;
  for (const x of xs) none *= 1 - literalShare(x);
  return 1 - none;
}

function pOf(i: Info): number {
  return i.p ?? (i.exact !== null ? shareOf(i.exact) : 1);
}

class Unsupported extends Error {}

const UNKNOWN: Info = { exact: null, req: null };
const EMPTY: Info = { exact: [''], req: null };

function lowerAscii(c: string): string {
  const k = c.charCodeAt(0);
  return k >= 65 && k <= 90 ? String.fromCharCode(k + 32) : c;
}

function quality(set: string[] | null): number {
  if (set === null || set.length === 0) return 0;
  let min = Infinity;
  for (const s of set) min = Math.min(min, [...s].length);
  return min;
}

/** Prefer longer shortest-atom, then fewer atoms. */
function better(a: string[] | null, b: string[] | null): string[] | null {
  const qa = quality(a);
  const qb = quality(b);
  if (qa !== qb) return qa > qb ? a : b;
  if (a === null) return b;
  if (b === null) return a;
  return a.length <= b.length ? a : b;
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}

function cross(a: string[], b: string[]): string[] | null {
  if (a.length * b.length > MAX_EXACT) return null;
  const out: string[] = [];
  for (const x of a) for (const y of b) {
    const s = x + y;
    if (s.length > MAX_LEN) return null;
    out.push(s);
  }
  return dedupe(out);
}

class Parser {
  private i = 0;
  constructor(private readonly p: string) {}

  parse(): Info {
    const info = this.alt();
    if (this.i < this.p.length) throw new Unsupported(`unexpected ${this.p[this.i]}`);
    return info;
  }

  private alt(): Info {
    const branches = [this.concat()];
    while (this.p[this.i] === '|') {
      this.i++;
      branches.push(this.concat());
    }
    if (branches.length === 1) return branches[0]!;
    let exact: string[] | null = [];
    let req: string[] | null = [];
    for (const b of branches) {
      if (exact !== null && b.exact !== null) exact = exact.concat(b.exact);
      else exact = null;
      const r = b.req ?? (b.exact && !b.exact.includes('') ? b.exact : null);
      if (req !== null && r !== null) req = req.concat(r);
      else req = null;
    }
    if (exact !== null) exact = exact.length > MAX_EXACT ? null : dedupe(exact);
    let none = 1;
    for (const b of branches) none *= 1 - pOf(b);
    return { exact, req: req === null ? null : dedupe(req), p: 1 - none };
  }

  private concat(): Info {
    let cur: string[] | null = [''];
    let broken = false;
    let best: string[] | null = null;
    // Every part of a sequence must occur: shares multiply (as if independent).
    let p = 1;
    const flush = (): void => {
      if (cur !== null && !cur.includes('')) best = better(best, cur);
      if (cur !== null) p *= shareOf(cur);
      cur = [''];
    };
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const item = this.repeat();
      if (item.exact !== null && cur !== null) {
        const next = cross(cur, item.exact);
        if (next !== null) {
          cur = next;
          continue;
        }
      }
      // The run of exactly-known text ends here.
      broken = true;
      flush();
      if (item.exact !== null) cur = item.exact;
      else {
        best = better(best, item.req);
        p *= pOf(item);
      }
    }
    const exact = broken ? null : cur;
    flush();
    return { exact, req: best, p };
  }

  private repeat(): Info {
    const atom = this.atom();
    const c = this.p[this.i];
    let min = 1;
    let max = 1;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i, this.i + 24));
      if (m === null) return atom; // a literal '{' was already consumed as an atom elsewhere
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.p[this.i] === '?') this.i++; // lazy
    if (min === 0) {
      if (max === 1 && atom.exact !== null) return { exact: dedupe([...atom.exact, '']), req: null };
      return UNKNOWN;
    }
    const req = atom.req ?? (atom.exact && !atom.exact.includes('') ? atom.exact : null);
    if (min === 1 && max === 1) return atom;
    return { exact: null, req, p: pOf(atom) };
  }

  private atom(): Info {
    const c = this.p[this.i]!;
    if (c === '(') return this.group();
    if (c === '[') return this.klass();
    if (c === '\\') return this.escape();
    this.i++;
    if (c === '.') return UNKNOWN;
    if (c === '^' || c === '$') return EMPTY;
    if (c === '*' || c === '+' || c === '?') throw new Unsupported('dangling quantifier');
    // A surrogate pair is one character.
    const code = c.charCodeAt(0);
    if (code >= 0xd800 && code <= 0xdbff && this.i < this.p.length) {
      const lo = this.p[this.i]!;
      this.i++;
      return { exact: [c + lo], req: null };
    }
    return { exact: [lowerAscii(c)], req: null };
  }

  private group(): Info {
    this.i++; // (
    if (this.p[this.i] === '?') {
      const rest = this.p.slice(this.i);
      const named = /^\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(rest);
      const flags = /^\?[imsU-]*(:|\))/.exec(rest);
      if (named) this.i += named[0].length;
      else if (flags) {
        this.i += flags[0].length;
        if (flags[1] === ')') return EMPTY; // (?i) applies to the rest: case is folded anyway
      } else throw new Unsupported('group syntax');
    }
    const inner = this.alt();
    if (this.p[this.i] !== ')') throw new Unsupported('unclosed group');
    this.i++;
    return inner;
  }

  private klass(): Info {
    this.i++; // [
    let negated = false;
    if (this.p[this.i] === '^') {
      negated = true;
      this.i++;
    }
    const chars: string[] = [];
    let simple = !negated;
    let first = true;
    while (this.i < this.p.length && (this.p[this.i] !== ']' || first)) {
      first = false;
      const c = this.p[this.i]!;
      if (c === '[' && this.p[this.i + 1] === ':') {
        const close = this.p.indexOf(':]', this.i);
        if (close < 0) throw new Unsupported('posix class');
        this.i = close + 2;
        simple = false;
        continue;
      }
      let ch: string;
      if (c === '\\') {
        const e = this.p[this.i + 1];
        if (e === undefined) throw new Unsupported('trailing backslash');
        if (/[dDwWsSpP]/.test(e)) {
          simple = false;
          this.i += 2;
          if ((e === 'p' || e === 'P') && this.p[this.i] === '{') this.i = this.p.indexOf('}', this.i) + 1;
          else if (e === 'p' || e === 'P') this.i++;
          continue;
        }
        const lit = this.escapedLiteral();
        if (lit === null) {
          simple = false;
          continue;
        }
        ch = lit;
      } else {
        ch = c;
        this.i++;
      }
      if (this.p[this.i] === '-' && this.p[this.i + 1] !== ']' && this.i + 1 < this.p.length) {
        // a range
        this.i++;
        if (this.p[this.i] === '\\') {
          if (this.escapedLiteral() === null) throw new Unsupported('range end');
        } else this.i++;
        simple = false;
        continue;
      }
      chars.push(lowerAscii(ch));
    }
    if (this.p[this.i] !== ']') throw new Unsupported('unclosed class');
    this.i++;
    const set = dedupe(chars);
    if (simple && set.length > 0 && set.length <= 6) return { exact: set, req: null };
    return UNKNOWN;
  }

  /** At a backslash: consumes a literal escape and returns its character, or null (consumed
   * something that is not a single literal, e.g. \x{...} out of range). */
  private escapedLiteral(): string | null {
    const e = this.p[this.i + 1]!;
    const hex = (s: string): string => String.fromCodePoint(parseInt(s, 16));
    if (e === 'x') {
      if (this.p[this.i + 2] === '{') {
        const close = this.p.indexOf('}', this.i);
        const v = this.p.slice(this.i + 3, close);
        this.i = close + 1;
        return lowerAscii(hex(v));
      }
      const v = this.p.slice(this.i + 2, this.i + 4);
      this.i += 4;
      return lowerAscii(hex(v));
    }
    if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(this.p.slice(this.i + 2, this.i + 6))) {
      const v = this.p.slice(this.i + 2, this.i + 6);
      this.i += 6;
      return lowerAscii(hex(v));
    }
    this.i += 2;
    if (e === 'n') return '\n';
    if (e === 't') return '\t';
    if (e === 'r') return '\r';
    if (e === 'f') return '\f';
    if (e === 'v') return '\v';
    if (/[0-9A-Za-z]/.test(e)) throw new Unsupported(`escape \\${e}`);
    return e; // escaped punctuation
  }

  private escape(): Info {
    const e = this.p[this.i + 1];
    if (e === undefined) throw new Unsupported('trailing backslash');
    if (e === 'b' || e === 'B' || e === 'A' || e === 'z') {
      this.i += 2;
      return EMPTY;
    }
    if (/[dDwWsS]/.test(e)) {
      this.i += 2;
      return UNKNOWN;
    }
    if (e === 'p' || e === 'P') {
      this.i += 2;
      if (this.p[this.i] === '{') this.i = this.p.indexOf('}', this.i) + 1;
      else this.i++;
      return UNKNOWN;
    }
    if (e === 'Q' || e === 'C' || e === 'E') throw new Unsupported(`escape \\${e}`);
    const lit = this.escapedLiteral();
    return lit === null ? UNKNOWN : { exact: [lit], req: null };
  }
}

/** The literal set every match of `pattern` contains, or null when none is good enough. */
export function requiredAtoms(pattern: string, minLength = MIN_ATOM_LENGTH): string[] | null {
  let info: Info;
  try {
    info = new Parser(pattern).parse();
  } catch {
    return null;
  }
  const atoms = info.req ?? (info.exact && !info.exact.includes('') ? info.exact : null);
  return quality(atoms) >= minLength ? atoms : null;
}

/** Rough share of texts `pattern` matches (lower is more selective); null if not parsed. */
export function matchShare(pattern: string): number | null {
  try {
    return pOf(new Parser(pattern).parse());
  } catch {
    return null;
  }
}

/** RE2 source for "contains one of these literals". */
export function atomPattern(atoms: string[]): string {
  return '(?:' + atoms.map((a) => a.replace(/[\\^$.|?*+()[\]{}\-/]/g, '\\$&').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r')).join('|') + ')';
}
