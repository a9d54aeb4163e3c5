import { TARGETS } from '../scanning/types.js';
import type { Chunk } from './types.js';

/**
 * A chunk as one text: a JSON header `{"job","chunk","start","source","count"}`, then the
 * documents' JSONL lines as they were uploaded, one per line. The lines are not re-encoded as
 * JSON strings (escaping every quote of every document, then parsing it back on the other side,
 * cost a pass over the whole job each way). A line never holds a newline: lines are what
 * readline split the upload at. The Kafka queue sends this; the SQLite spool keeps the lines
 * part of it.
 */
export function encodeChunk(c: Chunk): string {
  return `{"job":${JSON.stringify(c.job)},"chunk":${c.chunk},"start":${c.start},"source":${JSON.stringify(c.source)},"count":${c.lines.length}}\n${c.lines.join('\n')}`;
}

/** Reads encodeChunk's text back; throws an Error saying what is wrong with it. */
export function decodeChunk(text: string): Chunk {
  const nl = text.indexOf('\n');
  if (nl < 0) throw new Error('no header line');
  let head: Record<string, unknown>;
  try {
    head = JSON.parse(text.slice(0, nl)) as Record<string, unknown>;
  } catch (err) {
    throw new Error(`the header is not JSON (${(err as Error).message})`);
  }
  if (typeof head !== 'object' || head === null) throw new Error('the header is not an object');
  const { job, chunk, start, source, count } = head;
  if (typeof job !== 'string' || !Number.isInteger(chunk) || !Number.isInteger(start) || !Number.isInteger(count)) {
    throw new Error('the header lacks job, chunk, start or count');
  }
  if (!(TARGETS as readonly unknown[]).includes(source)) throw new Error(`the header's source ${JSON.stringify(source)} is not one of ${TARGETS.join(', ')}`);
  return { job, chunk: chunk as number, start: start as number, source: source as Chunk['source'], lines: splitLines(text.slice(nl + 1), count as number) };
}

/** Lines joined by newlines, split back; throws when there are not `count` of them. */
export function splitLines(text: string, count: number): string[] {
  if (count === 0 && text === '') return [];
  const lines = text.split('\n');
  if (lines.length !== count) throw new Error(`it holds ${lines.length} lines where ${count} were written`);
  return lines;
}
