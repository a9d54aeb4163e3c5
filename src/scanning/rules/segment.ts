/**
 * Prefilter form of a rule pattern: its most selective gap-free piece.
 *
 * Why: a pattern like `\b(print|show)\b[^.\n]{0,80}\b(system|hidden)\s+prompt` keeps a DFA thread
 * alive for up to 80 characters after every "print". Inside one RE2.Set, a hundred such patterns
 * alive at once multiply the DFA's states until its cache thrashes: the shipped rules measured
 * ~2 MB/s as one set. Any match of the whole pattern contains a match of each of its top-level
 * pieces between such gaps, so one piece (here `\b(system|hidden)\s+prompt`) is a valid SUPERSET
 * test with short-lived threads. The exact pattern then confirms each candidate.
 *
 * A "gap" is a top-level item repeated more than MAX_TIGHT times (or unbounded) that is not
 * whitespace: `.{0,80}`, `[^\n]*`, `\S+`, `[a-z0-9_-]{1,40}`. Top-level alternatives are
 * handled one by one. Patterns this cannot split are used whole (relaxed, see relax.ts).
 */
import { matchShare, requiredAtoms } from './atoms.js';

const MAX_TIGHT = 4;

interface Item {
  src: string;
  gap: boolean;
}

/** Splits at top-level '|' (outside groups and classes). */
function topLevelBranches(p: string): string[] | null {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') {
      inClass = true;
      if (p[i + 1] === '^') i++;
      if (p[i + 1] === ']') i++;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth === 0) {
      out.push(p.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) return null;
  }
  if (depth !== 0 || inClass) return null;
  out.push(p.slice(start));
  return out;
}

/** Top-level items of one branch, each with its quantifier. */
function items(p: string): Item[] | null {
  const out: Item[] = [];
  let i = 0;
  while (i < p.length) {
    const start = i;
    const c = p[i]!;
    let wideAtom = false;
    let isSpace = false;
    if (c === '(') {
      let depth = 0;
      let inClass = false;
      for (; i < p.length; i++) {
        const d = p[i]!;
        if (d === '\\') {
          i++;
          continue;
        }
        if (inClass) {
          if (d === ']') inClass = false;
          continue;
        }
        if (d === '[') {
          inClass = true;
          if (p[i + 1] === '^') i++;
          if (p[i + 1] === ']') i++;
        } else if (d === '(') depth++;
        else if (d === ')' && --depth === 0) {
          i++;
          break;
        }
      }
      if (depth !== 0) return null;
      // A group of its own is wide when it can match long stretches (contains .* etc.).
      wideAtom = /(^|[^\\])(\.|\[\^)/.test(p.slice(start, i));
    } else if (c === '[') {
      const negated = p[i + 1] === '^';
      i++;
      if (p[i] === '^') i++;
      if (p[i] === ']') i++;
      for (; i < p.length && p[i] !== ']'; i++) if (p[i] === '\\') i++;
      if (i >= p.length) return null;
      i++;
      wideAtom = negated || i - start > 8;
    } else if (c === '\\') {
      const e = p[i + 1];
      if (e === undefined) return null;
      i += 2;
      if ((e === 'p' || e === 'P' || e === 'x') && p[i] === '{') {
        const close = p.indexOf('}', i);
        if (close < 0) return null;
        i = close + 1;
      } else if (e === 'p' || e === 'P') i++;
      isSpace = e === 's';
      wideAtom = 'SWDwdpP'.includes(e);
    } else if (c === '.') {
      i++;
      wideAtom = true;
    } else {
      i++;
    }
    // quantifier
    let max = 1;
    const q = p[i];
    if (q === '*' || q === '+') {
      max = Infinity;
      i++;
    } else if (q === '?') {
      i++;
    } else if (q === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i, i + 24));
      if (m !== null) {
        max = m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]);
        i += m[0].length;
      }
    }
    if (max !== 1 && p[i] === '?') i++; // lazy
    out.push({ src: p.slice(start, i), gap: max > MAX_TIGHT && !isSpace && (wideAtom || max === Infinity) });
  }
  return out;
}

/** Higher is more selective: the inverse of the estimated share of texts the piece matches.
 * A piece needs a literal to count (a bare `\w+` selects nothing). */
function score(segment: string): number {
  if (requiredAtoms(segment, 1) === null) return 0;
  const p = matchShare(segment);
  return p === null || p <= 0 ? 0 : 1 / p;
}

function bestSegment(branch: string, flags: string): string | null {
  const its = items(branch);
  if (its === null) return null;
  if (!its.some((x) => x.gap)) return branch;
  const segments: string[] = [];
  let cur = '';
  for (const it of its) {
    if (it.gap) {
      if (cur) segments.push(cur);
      cur = '';
    } else cur += it.src;
  }
  if (cur) segments.push(cur);
  let best: string | null = null;
  let bestScore = 0;
  for (const s of segments) {
    const sc = score(s);
    if (sc > bestScore) {
      best = s;
      bestScore = sc;
    }
  }
  // Any piece with a literal beats the whole pattern: a short literal makes more candidates
  // (each confirmed by one exact test), a gap makes the whole set slow.
  if (best === null || bestScore <= 0) return null;
  return flags + best;
}

/** The prefilter for `pattern`, or null when the whole pattern should be used. */
export function prefilterSegment(pattern: string): string | null {
  // Leading inline flags, e.g. (?s) or (?i), apply to every piece.
  const lead = /^\(\?[imsU-]+\)/.exec(pattern);
  const flags = lead ? lead[0] : '';
  const body = lead ? pattern.slice(flags.length) : pattern;
  const branches = topLevelBranches(body);
  if (branches === null) return null;
  const parts: string[] = [];
  let changed = false;
  for (const b of branches) {
    const seg = bestSegment(b, '');
    if (seg === null) return null;
    if (seg !== b) changed = true;
    parts.push(seg);
  }
  if (!changed) return null;
  return flags + (parts.length === 1 ? parts[0]! : parts.map((x) => `(?:${x})`).join('|'));
}
