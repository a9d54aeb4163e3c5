/**
 * What `warden scan` reads: TEXT arguments, FILE and directory arguments, `--file rows.jsonl`,
 * and stdin (one text, or JSONL rows with --jsonl). Every input becomes an item, in order; a row
 * that cannot be scanned becomes a `bad` item in its place so the output keeps one line per input.
 */
import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

/** Where an item came from, copied into its output line. */
export interface ItemOrigin {
  file?: string;
  line?: number;
  id?: unknown;
}

export type ScanItem = ({ kind: 'text'; text: string; source?: string } | { kind: 'bad'; error: string }) & { origin: ItemOrigin };

const isJsonl = (path: string) => /\.jsonl(\.gz)?$/i.test(path);

/** JSONL rows of a stream, in order: each a JSON object with "text" (a string), or the reason it is not. Blank lines are skipped. */
export async function* jsonlRows(input: NodeJS.ReadableStream): AsyncGenerator<{ line: number; value: Record<string, unknown> } | { line: number; error: string }> {
  const rl = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const raw of rl) {
    line++;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      yield { line, error: `not JSON: ${(err as Error).message}` };
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) yield { line, error: 'each line must be a JSON object' };
    else if (typeof (value as { text?: unknown }).text !== 'string') yield { line, error: 'missing "text" (a string)' };
    else yield { line, value: value as Record<string, unknown> };
  }
}

/** A JSONL file (a .gz one through gunzip) as a stream; errors surface from the stream. */
export function openJsonl(path: string): NodeJS.ReadableStream {
  const file = createReadStream(path);
  const input = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  file.on('error', (err) => input.destroy(err));
  input.setEncoding('utf8');
  return input;
}

/** Rows of a JSONL stream as items: "source" (or the older "target") per row, "id" kept. */
async function* jsonlItems(input: NodeJS.ReadableStream, file: string | undefined): AsyncGenerator<ScanItem> {
  for await (const r of jsonlRows(input)) {
    const where = { ...(file !== undefined ? { file } : {}), line: r.line };
    if ('error' in r) {
      yield { kind: 'bad', error: r.error, origin: where };
      continue;
    }
    const row = r.value;
    const origin: ItemOrigin = { ...where, ...(row.id !== undefined ? { id: row.id } : {}) };
    const source = row.source ?? row.target;
    if (source !== undefined && typeof source !== 'string') yield { kind: 'bad', error: '"source" must be a string', origin };
    else yield { kind: 'text', text: row.text as string, ...(source !== undefined ? { source } : {}), origin };
  }
}

/** Files under a directory, sorted, recursively; dot-files and dot-directories skipped. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push(path);
  }
  return out;
}

/** One path argument: a directory (every file under it), a .jsonl[.gz] file (a row each), or any other file (its whole text). */
async function* pathItems(path: string, jsonl: boolean): AsyncGenerator<ScanItem> {
  const st = statSync(path);
  for (const file of st.isDirectory() ? filesUnder(path) : [path]) {
    if (jsonl || isJsonl(file)) {
      yield* jsonlItems(openJsonl(file), file);
      continue;
    }
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      yield { kind: 'bad', error: `cannot read: ${(err as Error).message}`, origin: { file } };
      continue;
    }
    yield { kind: 'text', text, origin: { file } };
  }
}

/** Whether an argument names a file or directory (then it is read), else it is a text to scan. */
export function isPath(arg: string): boolean {
  try {
    statSync(arg);
    return true;
  } catch {
    return false;
  }
}

export interface InputSpec {
  /** Positional arguments: paths (files, directories) or texts. */
  args: string[];
  /** --file rows.jsonl (the older spelling of a JSONL path argument). */
  file?: string;
  /** stdin and plain files are JSONL rows. */
  jsonl?: boolean;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** Every input of one `warden scan` run, in order. */
export async function* scanItems(spec: InputSpec): AsyncGenerator<ScanItem> {
  const args = [...spec.args, ...(spec.file !== undefined ? [spec.file] : [])];
  const fromStdin = args.length === 0 || (args.length === 1 && args[0] === '-');
  if (fromStdin) {
    if (spec.jsonl) {
      yield* jsonlItems(spec.stdin, undefined);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of spec.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    yield { kind: 'text', text: Buffer.concat(chunks).toString('utf8'), origin: {} };
    return;
  }
  for (const arg of args) {
    if (arg === '-') yield* spec.jsonl ? jsonlItems(spec.stdin, undefined) : scanItems({ args: [], stdin: spec.stdin });
    else if (arg === spec.file || isPath(arg)) {
      try {
        yield* pathItems(arg, spec.jsonl === true);
      } catch (err) {
        yield { kind: 'bad', error: `cannot read ${arg}: ${(err as Error).message}`, origin: { file: arg } };
      }
    } else yield { kind: 'text', text: arg, origin: {} };
  }
}
