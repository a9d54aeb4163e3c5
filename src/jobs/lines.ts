import { TARGETS, type Target } from '../scanning/types.js';

/** Longest document a line may carry: the same as one /v1/scan input. */
export const MAX_DOCUMENT_CHARS = 1_048_576;
const MAX_ID = 200;

export type ParsedLine =
  | { id: string; text: string; target: Target }
  | { id: string; error: { message: string; code: 'invalid_line'; param: string | null } };

/**
 * One JSONL line of a job: `{"id": "...", "input": "...", "source": "prompt"|"rag"|"output"}`
 * (`id` defaults to the line's index, `source` to the job's). A line that is not that gets an
 * error result of its own naming what is wrong; the job goes on.
 */
export function parseLine(line: string, index: number, defaultSource: Target): ParsedLine {
  const fallbackId = String(index);
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return bad(fallbackId, `line ${index + 1} is not valid JSON: ${(err as Error).message}`, null);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return bad(fallbackId, `line ${index + 1} must be a JSON object like {"id": "...", "input": "..."}`, null);
  }
  const v = value as Record<string, unknown>;
  if (typeof v.$too_long === 'number') {
    return bad(fallbackId, `line ${index + 1} has ${v.$too_long} bytes; the limit for one line is ${String(v.$limit)} bytes (jobs.chunk_max_bytes)`, null);
  }
  let id = fallbackId;
  if (v.id !== undefined) {
    if (typeof v.id !== 'string' || v.id.length === 0 || v.id.length > MAX_ID) {
      return bad(fallbackId, `line ${index + 1}: "id" must be a string of 1 to ${MAX_ID} characters`, 'id');
    }
    id = v.id;
  }
  const unknown = Object.keys(v).filter((k) => !['id', 'input', 'source', 'metadata'].includes(k));
  if (unknown.length) return bad(id, `line ${index + 1}: unknown field "${unknown[0]}"; a line has id, input, source and metadata`, unknown[0]!);
  if (typeof v.input !== 'string') return bad(id, `line ${index + 1}: "input" is required and must be a string`, 'input');
  if (v.input.length > MAX_DOCUMENT_CHARS) return bad(id, `line ${index + 1}: "input" has ${v.input.length} characters; the limit is ${MAX_DOCUMENT_CHARS}`, 'input');
  let target = defaultSource;
  if (v.source !== undefined) {
    if (!(TARGETS as readonly unknown[]).includes(v.source)) return bad(id, `line ${index + 1}: "source" must be one of ${TARGETS.join(', ')}, got ${JSON.stringify(v.source)}`, 'source');
    target = v.source as Target;
  }
  return { id, text: v.input, target };
}

function bad(id: string, message: string, param: string | null): ParsedLine {
  return { id, error: { message, code: 'invalid_line', param } };
}
