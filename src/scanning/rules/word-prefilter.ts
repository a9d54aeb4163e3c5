/**
 * The word-level prefilter: every form that word-forms.ts could turn into word sequences, run
 * at once over a text's tokens.
 *
 * The sequences become POSITIONS of a trie (one per slot; sequences with the same first slots
 * share them). A table maps each word and each word prefix to the positions whose slot accepts
 * it. Walking the text's tokens, a position is live when its slot accepts the token and it
 * starts a sequence or its parent was live at the previous token: an NFA whose live states are
 * a short list, so each token costs a hash lookup or two plus a few steps. A live position that
 * ends sequences names their forms as candidates.
 *
 * The layout (WordTables) is built here and handed as flat arrays to the C matcher in
 * native/text (words.c), which runs the same loop over UTF-8 bytes; WordMatcherTs is the
 * specification and the fallback where the addon is not built, and the differential tests
 * hold the two equal.
 */
import { nativeText, type NativeText } from '../native-text.js';
import { isWordCode, tokenise, type WordForm } from './word-forms.js';

export interface WordTables {
  /** Distinct words and prefixes; entryPositions[entryStart[e] .. entryStart[e+1]) accept entry e. */
  entries: string[];
  entryIsPrefix: Uint8Array;
  entryStart: Uint32Array;
  entryPositions: Uint32Array;
  /** Per position: bit 0 starts a sequence, bit 1 accepts any word. */
  posFlags: Uint8Array;
  /** Per position: the position before it in its sequences (-1 for a first slot). */
  posParent: Int32Array;
  /** Per position: the positions after it that accept any word (anyChildren[anyStart[p] ..)). */
  anyStart: Uint32Array;
  anyChildren: Uint32Array;
  /** Per position: the forms it completes (forms[formStart[p] .. formStart[p+1])). */
  formStart: Uint32Array;
  formIds: Uint32Array;
  /** Number of forms (ids 0 .. forms-1). */
  forms: number;
}

export const FIRST = 1;
export const ANY = 2;

/** Lays out the sequences of `forms` (index = form id; null: not a word form) as a trie of
 * slots: sequences with the same first slots share their positions (the variants of one form
 * share most of theirs), so a common word wakes few positions. */
export function buildWordTables(forms: ReadonlyArray<WordForm | null>): WordTables {
  const flags: number[] = [];
  const parent: number[] = [];
  const formsAt: number[][] = [];
  const childOf = new Map<string, number>(); // `${parent}|${slot key}` -> position
  const accept = new Map<string, number[]>(); // key: 'e:' word or 'p:' prefix
  forms.forEach((wf, id) => {
    if (wf === null) return;
    for (const seq of wf) {
      let at = -1;
      for (const slot of seq) {
        const key = `${at}|${slot.any ? '*' : `${slot.exact.join(',')}/${slot.prefix.join(',')}`}`;
        let pos = childOf.get(key);
        if (pos === undefined) {
          pos = flags.length;
          childOf.set(key, pos);
          flags.push((at < 0 ? FIRST : 0) | (slot.any ? ANY : 0));
          parent.push(at);
          formsAt.push([]);
          for (const w of slot.exact) push(accept, `e:${w}`, pos);
          for (const w of slot.prefix) push(accept, `p:${w}`, pos);
        }
        at = pos;
      }
      if (!formsAt[at]!.includes(id)) formsAt[at]!.push(id);
    }
  });
  const entries: string[] = [];
  const isPrefix: number[] = [];
  const start: number[] = [0];
  const positions: number[] = [];
  for (const [key, list] of accept) {
    entries.push(key.slice(2));
    isPrefix.push(key[0] === 'p' ? 1 : 0);
    positions.push(...new Set(list));
    start.push(positions.length);
  }
  const anyKids: number[][] = flags.map(() => []);
  flags.forEach((f, p) => {
    if ((f & ANY) !== 0 && parent[p]! >= 0) anyKids[parent[p]!]!.push(p);
  });
  return {
    entries,
    entryIsPrefix: Uint8Array.from(isPrefix),
    entryStart: Uint32Array.from(start),
    entryPositions: Uint32Array.from(positions),
    posFlags: Uint8Array.from(flags),
    posParent: Int32Array.from(parent),
    ...csr(anyKids, 'anyStart', 'anyChildren'),
    ...csr(formsAt, 'formStart', 'formIds'),
    forms: forms.length,
  } as WordTables;
}

function csr<S extends string, L extends string>(lists: number[][], startName: S, listName: L): Record<S | L, Uint32Array> {
  const start = new Uint32Array(lists.length + 1);
  const flat: number[] = [];
  lists.forEach((l, i) => {
    start[i] = flat.length;
    flat.push(...l);
  });
  start[lists.length] = flat.length;
  return { [startName]: start, [listName]: Uint32Array.from(flat) } as Record<S | L, Uint32Array>;
}

function push(m: Map<string, number[]>, k: string, v: number): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, [v]);
  else l.push(v);
}

/** Matches all-ASCII text (`bytes` its UTF-8, i.e. the same bytes) against the word forms. */
export interface WordMatcher {
  readonly kind: 'native' | 'typescript';
  /** Form ids with a sequence in the text, each once (a view reused by the next call). */
  match(text: string, bytes: Buffer): ArrayLike<number>;
}

/** The C matcher where native/text is built, else the TypeScript one. */
export function wordMatcher(tables: WordTables): WordMatcher {
  const addon = nativeText();
  return addon !== null ? new WordMatcherNative(addon, tables) : new WordMatcherTs(tables);
}

export class WordMatcherNative implements WordMatcher {
  readonly kind = 'native';
  private readonly handle: object;
  private readonly out: Uint32Array;

  constructor(
    private readonly addon: NativeText,
    tables: WordTables,
  ) {
    this.handle = addon.wordsCompile(
      tables.entries.map((e) => `${e}\n`).join(''),
      tables.entryIsPrefix,
      tables.entryStart,
      tables.entryPositions,
      tables.posFlags,
      tables.posParent,
      tables.anyStart,
      tables.anyChildren,
      tables.formStart,
      tables.formIds,
      tables.forms,
    );
    this.out = new Uint32Array(Math.max(1, tables.forms));
  }

  match(_text: string, bytes: Buffer): Uint32Array {
    return this.out.subarray(0, this.addon.wordsScan(this.handle, bytes, this.out));
  }
}

/** The matcher in TypeScript (all-ASCII text only): the specification of native/text/words.c
 * and the path where the addon is not built. */
export class WordMatcherTs implements WordMatcher {
  readonly kind = 'typescript';
  private readonly exact = new Map<string, Uint32Array>();
  private readonly prefix = new Map<string, Uint32Array>();
  private readonly prefixLengths: number[];
  private readonly seen: Int32Array;
  /** Per position: the token stamp it was last live at. */
  private readonly mark: Float64Array;
  private stamp: number;
  private call = 0;

  constructor(readonly tables: WordTables) {
    const lengths = new Set<number>();
    tables.entries.forEach((w, e) => {
      const list = tables.entryPositions.subarray(tables.entryStart[e]!, tables.entryStart[e + 1]!);
      if (tables.entryIsPrefix[e]) {
        this.prefix.set(w, list);
        lengths.add(w.length);
      } else this.exact.set(w, list);
    });
    this.prefixLengths = [...lengths].sort((a, b) => a - b);
    this.seen = new Int32Array(tables.forms).fill(-1);
    this.mark = new Float64Array(tables.posFlags.length);
    this.stamp = 2;
  }

  match(text: string): number[] {
    const { posFlags, posParent, anyStart, anyChildren, formStart, formIds } = this.tables;
    const mark = this.mark;
    const out: number[] = [];
    const call = ++this.call;
    let live: number[] = [];
    for (const tok of tokenise(text)) {
      const next: number[] = [];
      const stamp = ++this.stamp;
      const add = (p: number): void => {
        if (mark[p] === stamp) return;
        mark[p] = stamp;
        next.push(p);
        for (let k = formStart[p]!; k < formStart[p + 1]!; k++) {
          const f = formIds[k]!;
          if (this.seen[f] !== call) {
            this.seen[f] = call;
            out.push(f);
          }
        }
      };
      // Live at the previous token: a set of its own, since `mark` changes as positions go live now.
      const wasLive = new Set(live);
      const accept = (list: Uint32Array | undefined): void => {
        if (list === undefined) return;
        for (const p of list) if ((posFlags[p]! & FIRST) !== 0 || wasLive.has(posParent[p]!)) add(p);
      };
      accept(this.exact.get(tok));
      if (isWordCode(tok.charCodeAt(0))) {
        for (const L of this.prefixLengths) {
          if (L > tok.length) break;
          accept(this.prefix.get(tok.slice(0, L)));
        }
      }
      for (const a of live) for (let k = anyStart[a]!; k < anyStart[a + 1]!; k++) add(anyChildren[k]!);
      live = next;
    }
    this.stamp++;
    return out;
  }
}
