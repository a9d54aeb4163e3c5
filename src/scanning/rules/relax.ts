/**
 * Prefilter form of a rule pattern. A counted repetition such as `[^\n]{0,200}` is 200 NFA
 * states; inside one RE2.Set with a hundred other patterns the DFA's states multiply until its
 * cache thrashes, and the set ran at ~2 MB/s on the shipped rules. Replacing large counts with
 * `*` / `+` gives a pattern that matches a SUPERSET of the original, which is all a prefilter
 * needs: the set names candidate patterns, and the exact pattern (its own RE2) confirms each
 * one and finds the spans. Measured: the same rules' set at well over 100 MB/s.
 */

/** Counts up to this stay as written (small ones do not hurt the DFA). */
const KEEP_MAX = 4;

export function relaxPattern(pattern: string): string {
  let out = '';
  let i = 0;
  let inClass = false;
  const n = pattern.length;
  while (i < n) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if ((next === 'p' || next === 'P' || next === 'x') && pattern[i + 2] === '{') {
        const close = pattern.indexOf('}', i + 3);
        const end = close < 0 ? n : close + 1;
        out += pattern.slice(i, end);
        i = end;
        continue;
      }
      out += pattern.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (inClass) {
      if (c === '[' && pattern[i + 1] === ':') {
        const close = pattern.indexOf(':]', i + 2);
        const end = close < 0 ? n : close + 2;
        out += pattern.slice(i, end);
        i = end;
        continue;
      }
      if (c === ']') inClass = false;
      out += c;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      i++;
      if (pattern[i] === '^') {
        out += '^';
        i++;
      }
      if (pattern[i] === ']') {
        out += ']';
        i++;
      }
      continue;
    }
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (m !== null) {
        const lo = Number(m[1]);
        const hi = m[2] === undefined ? lo : m[3] === '' ? Infinity : Number(m[3]);
        if (hi > KEEP_MAX) {
          out += lo === 0 ? '*' : '+';
          i += m[0].length;
          continue;
        }
      }
    }
    out += c;
    i++;
  }
  return out;
}

/**
 * The same pattern with every capturing group made non-capturing: spans need only the overall
 * match, and without submatches RE2 can answer from its DFA instead of the slower NFA.
 */
export function withoutCaptures(pattern: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += pattern.slice(i, i + 2);
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (pattern[i + 1] === '^') out += pattern[++i];
      if (pattern[i + 1] === ']') out += pattern[++i];
      continue;
    }
    if (c === '(') {
      if (pattern[i + 1] !== '?') {
        out += '(?:';
        continue;
      }
      const named = /^\(\?P?<[A-Za-z_][A-Za-z0-9_]*>/.exec(pattern.slice(i, i + 40));
      if (named) {
        out += '(?:';
        i += named[0].length - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}
