/**
 * Word forms (word-forms.ts) of a whole rule set, kept on disk: reading the shipped forms as
 * words takes about a second of CPU, and every worker thread of every process starts with the
 * same rules. The first builder writes `<dir>/<key>.json`; the rest read it in milliseconds.
 * The key covers this module's and word-forms.ts' own code and the forms, so a changed reader
 * or rule set never meets a stale file. The directory is the vectorscan cache's
 * (WARDEN_PREFILTER_CACHE, default <tmpdir>/warden-vectorscan). Any failure to read or write
 * the cache only costs the time: the forms are then read here.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log } from '../../log.js';
import { readWords, type WordReading } from './word-forms.js';

let codeHash: string | null = null;

function readerCode(): string {
  if (codeHash !== null) return codeHash;
  const h = createHash('sha256');
  for (const f of ['./word-forms.js', './word-form-cache.js']) {
    try {
      h.update(readFileSync(fileURLToPath(new URL(f, import.meta.url))));
    } catch {
      h.update(`${f}:unreadable:${Date.now()}`); // never matches a file written before
    }
  }
  return (codeHash = h.digest('hex'));
}

/** readWords() of each form (null where a form is not read as words, or where `skip[i]`). */
export function cachedWordForms(forms: readonly string[], skip: readonly boolean[]): Array<WordReading | null> {
  const wanted = forms.map((f, i) => (skip[i] ? null : f));
  const key = createHash('sha256').update(readerCode()).update(JSON.stringify(wanted)).digest('hex').slice(0, 32);
  const dir = process.env.WARDEN_PREFILTER_CACHE ?? join(tmpdir(), 'warden-vectorscan');
  const file = join(dir, `words-${key}.json`);
  try {
    const got = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    if (Array.isArray(got) && got.length === forms.length && got.every((w, i) => (w === null ? true : wanted[i] !== null && isReading(w)))) return got as Array<WordReading | null>;
  } catch {
    /* not built yet, or unreadable: build */
  }
  const out = wanted.map((f) => (f === null ? null : readWords(f)));
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    writeFileSync(tmp, JSON.stringify(out));
    renameSync(tmp, file);
  } catch (err) {
    log.debug({ err: (err as Error).message, file }, 'word prefilter cache not written');
  }
  return out;
}

const strings = (x: unknown): boolean => Array.isArray(x) && x.every((s) => typeof s === 'string' && s.length > 0 && s.length <= 64);

/** The shape readWords() gives: sequences of slots, and whether the reading is partial. */
function isReading(r: unknown): boolean {
  const o = r as { sequences?: unknown; partial?: unknown } | null;
  if (o === null || typeof o !== 'object' || typeof o.partial !== 'boolean') return false;
  const w = o.sequences;
  return (
    Array.isArray(w) &&
    w.length > 0 &&
    w.every(
      (seq) =>
        Array.isArray(seq) &&
        seq.length > 0 &&
        seq.every((slot: unknown) => {
          const s = slot as Record<string, unknown> | null;
          return s !== null && typeof s === 'object' && strings(s.exact) && strings(s.prefix) && typeof s.any === 'boolean';
        }),
    )
  );
}
