import { createReadStream, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { createGunzip } from 'node:zlib';
import { WardenError } from '../errors.js';

const LINE_END = /\r\n|\n|\r/;

const refused = (message: string, code: string, param?: string) => new WardenError(400, 'invalid_request_error', message, { code, param });

/** Counts the bytes going through and fails the stream once they pass `max` (the error names the key). */
class ByteLimit extends Transform {
  private seen = 0;
  constructor(private readonly max: number, private readonly what: string) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) return done(new WardenError(413, 'request_too_large', `${this.what} is larger than ${this.max} bytes; the limit is ${this.max} bytes (jobs.max_bytes).`, { code: 'job_too_large', param: 'jobs.max_bytes' }));
    done(null, chunk);
  }
}

/**
 * The lines of a JSONL stream, read as they arrive (never the whole body in memory), after the
 * byte limit: one array per piece of the stream, so a job of a million lines costs a few
 * thousand awaits, not a million. Lines end at \n, \r\n or \r (as readline splits them); blank
 * lines are skipped (they are no documents). `gzip` decodes first.
 */
export async function* linesOf(stream: Readable, opts: { maxBytes: number; gzip: boolean; what: string }): AsyncGenerator<string[]> {
  const limit = new ByteLimit(opts.maxBytes, opts.what);
  let source: Readable = stream;
  if (opts.gzip) {
    const gunzip = createGunzip();
    stream.on('error', (e) => gunzip.destroy(e));
    source = stream.pipe(gunzip);
  }
  source.on('error', (e) => limit.destroy(e));
  const decoder = new StringDecoder('utf8');
  let rest = '';
  try {
    for await (const piece of source.pipe(limit) as AsyncIterable<Buffer>) {
      const parts = (rest + decoder.write(piece)).split(LINE_END);
      rest = parts.pop()!;
      const lines = parts.filter((line) => line.trim() !== '');
      if (lines.length) yield lines;
    }
    rest += decoder.end();
    if (rest.trim() !== '') yield [rest];
  } catch (err) {
    if (err instanceof WardenError) throw err;
    if (opts.gzip) throw refused(`${opts.what} is not valid gzip data: ${(err as Error).message}.`, 'invalid_content_encoding');
    throw err;
  } finally {
    if (!stream.destroyed && stream.readableEnded === false) stream.resume();
  }
}

/**
 * Resolves `file://` URLs to files under `dir` (after following symlinks, so a link cannot lead
 * out of it). Any other scheme is refused with the reason: object storage would plug in here
 * (docs/jobs.md).
 */
export function resolveFiles(urls: string[], dir: string | undefined): string[] {
  if (!dir) throw refused('File inputs are off on this instance: set jobs.files_dir to the directory jobs may read from.', 'files_disabled', 'files');
  let root: string;
  try {
    root = realpathSync(dir);
  } catch {
    throw refused(`jobs.files_dir ${JSON.stringify(dir)} does not exist on this instance.`, 'files_dir_missing', 'files');
  }
  return urls.map((url, i) => {
    if (!url.startsWith('file://')) throw refused(`files[${i}] must be a file:// URL under jobs.files_dir, got ${JSON.stringify(url.slice(0, 200))}.`, 'unsupported_file_url', `files[${i}]`);
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch (err) {
      throw refused(`files[${i}] is not a valid file:// URL: ${(err as Error).message}.`, 'invalid_file_url', `files[${i}]`);
    }
    let real: string;
    try {
      real = realpathSync(resolve(path));
    } catch {
      throw refused(`files[${i}]: ${path} does not exist.`, 'file_not_found', `files[${i}]`);
    }
    const rel = relative(root, real);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
      throw refused(`files[${i}]: ${path} is not under jobs.files_dir (${root}).`, 'file_outside_dir', `files[${i}]`);
    }
    if (!statSync(real).isFile()) throw refused(`files[${i}]: ${path} is not a file.`, 'file_not_found', `files[${i}]`);
    return real;
  });
}

/** Every line of the files in order (in arrays, as linesOf), one byte limit over all of them; `.gz` files are decoded. */
export async function* linesOfFiles(paths: string[], maxBytes: number): AsyncGenerator<string[]> {
  let left = maxBytes;
  for (const path of paths) {
    const size = statSync(path).size;
    if (!path.endsWith('.gz') && size > left) {
      throw new WardenError(413, 'request_too_large', `The job's files hold more than ${maxBytes} bytes; the limit is ${maxBytes} bytes (jobs.max_bytes).`, { code: 'job_too_large', param: 'jobs.max_bytes' });
    }
    yield* linesOf(createReadStream(path), { maxBytes: left, gzip: path.endsWith('.gz'), what: `The job's files` });
    left -= size;
  }
}
