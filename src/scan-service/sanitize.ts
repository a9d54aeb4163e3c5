import type { Span } from '../scanning/types.js';
import type { ScanRecord } from './record.js';

/** One cut made by sanitize(): where it was, what it held and which findings put it there. */
export interface Removal extends Span {
  /** The removed text. */
  text: string;
  /** sentence: the sentence holding a threat span (or found on its own when the detector
   * judged the whole document); document: nothing smaller carried the injection. */
  unit: 'sentence' | 'document';
  /** Rule ids of the threats that led to the cut ('located' when found by scanning the sentences on their own). */
  rule_ids: string[];
}

/** Scans texts (as retrieved data) and says which ones are still flagged; no record, no event. */
export type Probe = (texts: string[]) => Promise<boolean[]>;

/** A span covering (nearly) all of the document is a whole-document judgement (a classifier's), not a location. */
const WHOLE_SHARE = 0.9;

/**
 * The sentences of a document: a line is cut after `.`, `!` or `?` followed by white space, and
 * at its end; each sentence keeps the white space (and the newline) after it, so removing one
 * leaves the text around it as it was.
 */
export function sentences(content: string): Span[] {
  const out: Span[] = [];
  const re = /[.!?]+["')\]]*[ \t]+|\r?\n/g;
  let start = 0;
  for (let m = re.exec(content); m !== null; m = re.exec(content)) {
    let end = m.index + m[0].length;
    // Blank lines after a sentence go with it.
    while (content[end] === '\n' || content[end] === '\r') end++;
    if (end > start) out.push({ start, end });
    start = end;
    re.lastIndex = end;
  }
  if (start < content.length) out.push({ start, end: content.length });
  return out;
}

const blank = (s: string) => s.trim() === '';

/**
 * Removes what carries the injection from a flagged document, never more than it must:
 *  1. the sentences a threat's span falls in;
 *  2. when what is left is still flagged (a detector that judged the whole document, or an
 *     injection running over several sentences), every remaining sentence flagged on its own;
 *  3. the whole document only when, after that, what is left is still flagged: the document as
 *     a whole is the injection.
 * Without a probe (no scanner at hand) step 2 and 3 fall back to withholding the document when
 * a whole-document judgement is left. Returns the text and every cut, in order.
 */
export async function sanitize(content: string, r: ScanRecord, probe?: Probe): Promise<{ content: string; removed: Removal[] }> {
  if (!r.flagged) return { content, removed: [] };
  const units = sentences(content);
  const cut = new Map<number, Set<string>>(); // unit index -> rule ids
  const mark = (i: number, rule: string) => {
    const ids = cut.get(i) ?? new Set<string>();
    ids.add(rule);
    cut.set(i, ids);
  };
  let wholeJudgement = false;
  for (const t of r.threats) {
    const located = t.spans.filter((s) => s.end - s.start < WHOLE_SHARE * content.length);
    if (located.length === 0) wholeJudgement = true;
    for (const s of located) {
      units.forEach((u, i) => {
        if (u.start < Math.max(s.end, s.start + 1) && s.start < u.end) mark(i, t.rule_id);
      });
    }
  }
  const rest = () => units.map((u, i) => (cut.has(i) ? '' : content.slice(u.start, u.end))).join('');
  let whole = false;
  if (probe !== undefined) {
    const left = rest();
    if (!blank(left) && (await probe([left]))[0]) {
      const open = units.map((_, i) => i).filter((i) => !cut.has(i) && !blank(content.slice(units[i]!.start, units[i]!.end)));
      const flagged = await probe(open.map((i) => content.slice(units[i]!.start, units[i]!.end)));
      open.forEach((i, k) => flagged[k] && mark(i, 'located'));
      const after = rest();
      whole = !blank(after) && (await probe([after]))[0] === true;
    }
  } else whole = wholeJudgement;
  if (whole) {
    const ids = [...new Set(r.threats.map((t) => t.rule_id))];
    return { content: '', removed: [{ start: 0, end: content.length, text: content, unit: 'document', rule_ids: ids }] };
  }
  const removed: Removal[] = [];
  units.forEach((u, i) => {
    const ids = cut.get(i);
    if (ids === undefined) return;
    const last = removed[removed.length - 1];
    if (last && last.end === u.start) {
      last.end = u.end;
      last.text = content.slice(last.start, last.end);
      last.rule_ids = [...new Set([...last.rule_ids, ...ids])];
    } else removed.push({ start: u.start, end: u.end, text: content.slice(u.start, u.end), unit: 'sentence', rule_ids: [...ids] });
  });
  return { content: rest(), removed };
}
