import { MAX_PLACEHOLDER_CHARS, PLACEHOLDER, PlaceholderVault } from '../policies/placeholders.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../providers/types.js';
import type { ScanOutcome } from '../ports.js';

/**
 * Redaction in the proxy (docs/policies.md): the values a policy says to `redact` are replaced
 * by typed placeholders ([EMAIL_1], [IBAN_2]) everywhere in the request before it goes upstream,
 * and the placeholders in the answer are put back before it reaches the client, plain or
 * streamed. The vault (placeholder ↔ value) lives in this request's memory only.
 */

export interface RequestRedaction {
  /** The request as it goes upstream: no redacted value left in any string of it. */
  request: ChatRequest;
  vault: PlaceholderVault;
}

/** Request fields that are not sent as text to the model and must keep their value (the route needs `model`). */
const KEEP = new Set(['model']);

/**
 * The request with every occurrence of a redacted value replaced, in every string (the value a
 * scan found in one field is replaced wherever else it appears too, e.g. a system turn that is
 * not scanned). Placeholders are numbered per type in order of first appearance, so the same
 * conversation sent again (with its history) gets the same placeholders. Null: nothing to redact.
 */
export function redactRequest(input: ChatRequest, scans: readonly ScanOutcome[]): RequestRedaction | null {
  const kinds = new Map<string, string>();
  for (const s of scans) for (const r of s.redactions ?? []) if (r.value && !kinds.has(r.value)) kinds.set(r.value, r.kind);
  if (kinds.size === 0) return null;
  const values = [...kinds.keys()].sort((a, b) => b.length - a.length);
  // Placeholders the request already holds as text are not handed out (the answer's copies of them stay as written).
  const vault = new PlaceholderVault(new Set(JSON.stringify(input.messages ?? []).match(PLACEHOLDER) ?? []));
  const replace = (text: string): string => {
    // Every occurrence of every value, leftmost first (longest first at one position), none overlapping.
    const hits: { at: number; value: string }[] = [];
    for (const v of values) for (let i = text.indexOf(v); i >= 0; i = text.indexOf(v, i + v.length)) hits.push({ at: i, value: v });
    if (hits.length === 0) return text;
    hits.sort((a, b) => a.at - b.at || b.value.length - a.value.length);
    let out = '';
    let pos = 0;
    for (const h of hits) {
      if (h.at < pos) continue;
      out += text.slice(pos, h.at) + vault.placeholderFor(kinds.get(h.value)!, h.value);
      pos = h.at + h.value.length;
    }
    return out + text.slice(pos);
  };
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return replace(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[replace(k)] = walk(x);
      return out;
    }
    return v;
  };
  const request: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) request[k] = KEEP.has(k) ? v : walk(v);
  return { request: request as unknown as ChatRequest, vault };
}

function restoreDeep(v: unknown, vault: PlaceholderVault): unknown {
  if (typeof v === 'string') return vault.restore(v);
  if (Array.isArray(v)) return v.map((x) => restoreDeep(x, vault));
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = restoreDeep(x, vault);
    return out;
  }
  return v;
}

/** A completion with the vault's placeholders put back in every choice (text, refusal, tool-call arguments). */
export function restoreCompletion(c: ChatCompletion, vault: PlaceholderVault): ChatCompletion {
  return { ...c, choices: c.choices.map((ch) => restoreDeep(ch, vault) as (typeof c.choices)[number]) };
}

/** Where a tail of text may be the start of a placeholder (`[`, `[EMA`, `[EMAIL_`, `[EMAIL_1`): its index, else -1. */
function openTail(text: string): number {
  const p = text.lastIndexOf('[');
  if (p < 0 || text.length - p > MAX_PLACEHOLDER_CHARS) return -1;
  for (let i = p + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95)) return -1;
  }
  return p;
}

const TEXT_FIELDS = ['content', 'refusal'] as const;

/**
 * A stream with the vault's placeholders put back. A placeholder split across chunks is
 * restored whole: a tail that may be the start of one is held (at most MAX_PLACEHOLDER_CHARS
 * characters) and sent with the next piece of the same choice and field, or when the choice
 * finishes. Text that only looks like a placeholder (unknown to the vault) goes out as it is.
 * Tool-call arguments are restored per delta (the output guard releases them whole).
 */
export async function* restoreStream(chunks: AsyncIterable<ChatCompletionChunk>, vault: PlaceholderVault): AsyncGenerator<ChatCompletionChunk> {
  const pending = new Map<string, string>();
  let last: ChatCompletionChunk | null = null;
  for await (const chunk of chunks) {
    last = chunk;
    if (!chunk.choices || chunk.choices.length === 0) {
      yield* flush(pending, last);
      yield chunk;
      continue;
    }
    const choices = chunk.choices.map((ch) => {
      const delta: Record<string, unknown> = { ...ch.delta };
      for (const f of TEXT_FIELDS) {
        const key = `${ch.index}:${f}`;
        const held = pending.get(key) ?? '';
        const piece = delta[f];
        if (typeof piece !== 'string' && held === '') continue;
        const text = held + (typeof piece === 'string' ? piece : '');
        const cut = ch.finish_reason ? -1 : openTail(text);
        if (cut >= 0) {
          pending.set(key, text.slice(cut));
          delta[f] = vault.restore(text.slice(0, cut));
        } else {
          pending.delete(key);
          delta[f] = vault.restore(text);
        }
      }
      if (Array.isArray(delta.tool_calls)) delta.tool_calls = restoreDeep(delta.tool_calls, vault);
      return { ...ch, delta: delta as typeof ch.delta };
    });
    yield { ...chunk, choices };
  }
  if (last) yield* flush(pending, last);
}

/** Whatever is still held, as one chunk per choice and field (a stream that ended without a finish). */
function* flush(pending: Map<string, string>, like: ChatCompletionChunk): Generator<ChatCompletionChunk> {
  for (const [key, text] of pending) {
    const [index, field] = key.split(':') as [string, string];
    yield { id: like.id, object: 'chat.completion.chunk', created: like.created, model: like.model, choices: [{ index: Number(index), delta: { [field]: text }, finish_reason: null }] };
  }
  pending.clear();
}
