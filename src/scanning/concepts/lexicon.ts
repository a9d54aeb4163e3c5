/**
 * The concept lexicon (lexicon.yaml beside this file): the words attacks are built from, per
 * language, each mapped to one concept id ("ignore", "previous", "system_prompt", ...). This file
 * reads and checks it; match.ts finds the concepts in a text; the classifier turns them into
 * features (plugins/classifier/features.ts).
 *
 * The checks make a bad entry fail loudly, with the file and line: every concept has at least one
 * entry in every language listed under `languages`, no language outside that list, every entry a
 * non-empty string of letters (spaces, hyphens and apostrophes between them), `*` only at the
 * end of a word, a prefix at least 3 letters long (2 in scripts written without spaces or in Hangul), no
 * entry twice in one concept and language.
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineCounter, parseDocument, isMap, isSeq, isScalar, type Node } from 'yaml';

export interface LexiconEntry {
  /** As written, lower case; a trailing `*` makes the last word a prefix. */
  term: string;
  line: number;
}
export interface Concept {
  id: string;
  /** Entries per language code. */
  entries: Record<string, LexiconEntry[]>;
}
export interface Lexicon {
  file: string;
  languages: string[];
  concepts: Concept[];
}

/** The error every check throws: `file:line: what is wrong`. */
export class LexiconError extends Error {
  constructor(readonly file: string, readonly line: number, why: string) {
    super(`${file}:${line}: ${why}`);
    this.name = 'LexiconError';
  }
}

/** Scripts written without spaces between words, and Hangul (particles glued to the word). */
export const UNSPACED = /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff\uac00-\ud7af]/;
const TERM = /^[\p{L}\p{M}\p{N}]+\*?(?:[ '’\u200c-][\p{L}\p{M}\p{N}]+\*?)*$/u;
const ID = /^[a-z][a-z0-9_]*$/;
const LANG = /^[a-z]{2,3}$/;

/** Parses and checks lexicon text; `file` names it in errors. */
export function parseLexicon(text: string, file: string): Lexicon {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const lineOf = (node: Node | null | undefined): number => (node?.range ? lines.linePos(node.range[0]).line : 1);
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    throw new LexiconError(file, e.linePos?.[0]?.line ?? 1, `not valid YAML: ${e.message.split('\n')[0]}`);
  }
  const root = doc.contents;
  if (!isMap(root)) throw new LexiconError(file, lineOf(root), 'the file must be a mapping with "languages" and "concepts"');
  const langsNode = root.get('languages', true);
  if (!isSeq(langsNode) || langsNode.items.length === 0) throw new LexiconError(file, lineOf(langsNode ?? root), '"languages" must be a non-empty list of language codes');
  const languages: string[] = [];
  for (const item of langsNode.items as Node[]) {
    const v = isScalar(item) ? item.value : undefined;
    if (typeof v !== 'string' || !LANG.test(v)) throw new LexiconError(file, lineOf(item), `language code ${JSON.stringify(v)} must be 2-3 lower-case letters (ISO 639)`);
    if (languages.includes(v)) throw new LexiconError(file, lineOf(item), `language "${v}" listed twice`);
    languages.push(v);
  }
  const conceptsNode = root.get('concepts', true);
  if (!isMap(conceptsNode) || conceptsNode.items.length === 0) throw new LexiconError(file, lineOf(conceptsNode ?? root), '"concepts" must be a mapping of concept id to languages');
  for (const pair of root.items) {
    const k = isScalar(pair.key) ? pair.key.value : pair.key;
    if (k !== 'languages' && k !== 'concepts') throw new LexiconError(file, lineOf(pair.key as Node), `unknown top-level key ${JSON.stringify(k)} (expected "languages" and "concepts")`);
  }
  const concepts: Concept[] = [];
  for (const pair of conceptsNode.items) {
    const keyNode = pair.key as Node;
    const id = isScalar(keyNode) ? keyNode.value : undefined;
    if (typeof id !== 'string' || !ID.test(id)) throw new LexiconError(file, lineOf(keyNode), `concept id ${JSON.stringify(id)} must be lower case letters, digits and _`);
    const body = pair.value as Node | null;
    if (!isMap(body)) throw new LexiconError(file, lineOf(body ?? keyNode), `concept "${id}" must map language codes to lists of entries`);
    const entries: Record<string, LexiconEntry[]> = {};
    for (const lp of body.items) {
      const langNode = lp.key as Node;
      const lang = isScalar(langNode) ? langNode.value : undefined;
      if (typeof lang !== 'string' || !languages.includes(lang)) throw new LexiconError(file, lineOf(langNode), `concept "${id}": language ${JSON.stringify(lang)} is not in "languages"`);
      const list = lp.value as Node | null;
      if (!isSeq(list) || list.items.length === 0) throw new LexiconError(file, lineOf(list ?? langNode), `concept "${id}", language "${lang}": expected a non-empty list of entries`);
      const seen = new Set<string>();
      const out: LexiconEntry[] = [];
      for (const item of list.items as Node[]) {
        const line = lineOf(item);
        const v = isScalar(item) ? item.value : undefined;
        if (typeof v !== 'string') throw new LexiconError(file, line, `concept "${id}", language "${lang}": entry ${JSON.stringify(v)} must be a string`);
        const term = v.trim();
        if (!TERM.test(term)) throw new LexiconError(file, line, `concept "${id}", language "${lang}": entry ${JSON.stringify(v)} must be words of letters (one space, hyphen, apostrophe or zero-width non-joiner between words), with * only at the end of a word`);
        if (term !== term.toLowerCase()) throw new LexiconError(file, line, `concept "${id}", language "${lang}": entry ${JSON.stringify(v)} must be lower case`);
        for (const part of term.split(/[ '’\u200c-]/)) {
          if (!part.endsWith('*')) continue;
          const stem = part.slice(0, -1);
          const min = UNSPACED.test(stem) ? 2 : 3;
          if ([...stem].length < min) throw new LexiconError(file, line, `concept "${id}", language "${lang}": prefix "${part}" is shorter than ${min} letters and would match everyday words`);
        }
        if (seen.has(term)) throw new LexiconError(file, line, `concept "${id}", language "${lang}": entry "${term}" is listed twice`);
        seen.add(term);
        out.push({ term, line });
      }
      if (entries[lang]) throw new LexiconError(file, lineOf(langNode), `concept "${id}": language "${lang}" appears twice`);
      entries[lang] = out;
    }
    const missing = languages.filter((l) => !entries[l]);
    if (missing.length > 0) throw new LexiconError(file, lineOf(keyNode), `concept "${id}" has no entries for ${missing.join(', ')} (every concept needs every listed language)`);
    concepts.push({ id, entries });
  }
  return { file, languages, concepts };
}

/** The shipped lexicon.yaml; compiled code runs from dist/, so look in both places. */
export function builtinLexiconPath(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, 'lexicon.yaml'), resolve(here, '../../../../src/scanning/concepts/lexicon.yaml')];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`concepts: lexicon.yaml not found (looked in ${candidates.join(', ')})`);
  return found;
}

export function loadLexicon(path: string = builtinLexiconPath()): Lexicon {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`concepts: cannot read lexicon ${path}: ${(err as Error).message}`);
  }
  return parseLexicon(text, path);
}
