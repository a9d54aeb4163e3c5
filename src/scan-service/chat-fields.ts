import type { ExtraFinding } from '../ports.js';
import type { Severity, Span, Target } from '../scanning/types.js';
import { charsetOf, payloadText, type Payload } from './payload-text.js';

/**
 * The one field map of OpenAI chat traffic: for every field of a chat request, of a chat
 * answer and of a streamed answer chunk, the scan target its text is scanned as, or why it is
 * not text. /v1/scan with `messages`, the chat proxy (input and output) and the Anthropic
 * adapter all read chat messages through here, so they cannot disagree on what is scanned.
 *
 * The rule is fail-closed: a string the map does not know is scanned (as `rag` in a request,
 * as `output` in an answer); it is never passed unscanned and never dropped. "Not text" is
 * only ever: a closed enum holding one of its known values (`role: "user"`), an identifier
 * that never reaches the model's context (`model`, `user`, `metadata`), a value the provider
 * wrote rather than the model (`id`, `created`, `usage`) or binary media (a base64 image that
 * does not decode to text). Numbers, booleans and null are not text. Object keys are text too,
 * on both sides and at any depth, unless they are names of the chat API or JSON Schema
 * keywords (KNOWN_KEYS): an unknown field's name, a key inside it, a schema's property names.
 *
 * Request targets: user turns are `prompt`; assistant turns in the history are `prompt` too (a
 * forged assistant turn is an injection route, and whoever sent it wrote it); tool and function
 * results, tool-call arguments, tool/function definitions (names, descriptions, parameter
 * schemas) and unknown fields are `rag`; system and developer turns are `prompt` when
 * `scanSystemTurns` is set (security.input.scan_system_turns), else not scanned (see
 * docs/proxy.md). `name` fields and other identifiers are scanned with `_` and `-` read as
 * spaces (`Ignore_all_previous_instructions` is a valid OpenAI name), same length.
 */

/** A path into the JSON: keys and array indices. */
export type FieldPath = (string | number)[];

export interface FieldText {
  path: FieldPath;
  target: Target;
  text: string;
  /** messages[i] the text belongs to, for requests. */
  message?: number;
  /** A user turn's text: scanned joined with the other user turns. */
  userTurn?: boolean;
  /** The text is an object key (a property name), not a value. */
  isName?: boolean;
  /** A data: URL or file payload that cannot be read as text (why): `text` is empty. */
  undecodable?: string;
}

export interface RequestMapOptions {
  /** Scan system and developer turns as `prompt` (security.input.scan_system_turns). */
  scanSystemTurns?: boolean;
}

/** A piece of a scan group's text and where it came from. */
export interface Segment {
  start: number;
  end: number;
  path: FieldPath;
  message?: number;
}

/** One text per target, built from the fields; `segments` map its offsets back to fields. */
export interface ScanGroup {
  target: Target;
  text: string;
  segments: Segment[];
}

export const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

/** Closed enums: a value from the list is not text; any other value is scanned. */
const ENUMS: Record<string, readonly string[]> = {
  role: [...ROLES],
  type: ['text', 'image_url', 'input_audio', 'file', 'refusal', 'function', 'custom', 'json_object', 'json_schema', 'url_citation', 'grammar', 'allowed_tools', 'content', 'approximate', 'input_text', 'output_text'],
  detail: ['auto', 'low', 'high'],
  format: ['wav', 'mp3', 'flac', 'opus', 'pcm16', 'aac', 'text', 'grammar'],
  tool_choice: ['none', 'auto', 'required'],
  function_call: ['none', 'auto'],
  reasoning_effort: ['minimal', 'low', 'medium', 'high', 'none'],
  verbosity: ['low', 'medium', 'high'],
  service_tier: ['auto', 'default', 'flex', 'scale', 'priority'],
  modalities: ['text', 'audio'],
  finish_reason: ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'],
  object: ['chat.completion', 'chat.completion.chunk'],
  search_context_size: ['low', 'medium', 'high'],
  prompt_cache_retention: ['in-memory', '24h'],
  mode: ['auto', 'required'],
  voice: ['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'nova', 'onyx', 'sage', 'shimmer', 'verse', 'marin', 'cedar'],
};

/** Request fields that never reach the model's context (routing, accounting, sampling). */
const REQUEST_NOT_TEXT = new Set(['model', 'user', 'metadata', 'stop', 'prompt_cache_key', 'safety_identifier', 'seed', 'logit_bias']);

/** Top-level answer fields the provider writes, not the model. `obfuscation` is per-chunk random padding. */
const ANSWER_NOT_TEXT = new Set(['id', 'created', 'model', 'system_fingerprint', 'usage', 'obfuscation']);

/** Message fields scanned with the message's own target; any other field of a message is `rag`. */
const MESSAGE_FIELDS = new Set(['role', 'content', 'name', 'refusal', 'audio']);

/**
 * Object keys that are names of the chat API (request, answer, chunk) or JSON Schema keywords:
 * not text. Any other key is scanned as text (read like an identifier), in a request and in an
 * answer, at any depth: a key is as much a carrier as a value (`"x_debug": {"AKIA…": 1}`, a
 * property name under a schema's `$defs` or `patternProperties` that is an instruction).
 */
const KNOWN_KEYS = new Set([
  // chat request
  'messages', 'model', 'role', 'content', 'name', 'tool_calls', 'tool_call_id', 'function_call', 'function', 'arguments', 'type', 'text',
  'image_url', 'url', 'detail', 'input_audio', 'data', 'format', 'file', 'file_data', 'file_id', 'filename', 'refusal', 'audio', 'id', 'index',
  'tools', 'functions', 'description', 'parameters', 'strict', 'custom', 'grammar', 'definition', 'syntax', 'response_format', 'json_schema',
  'schema', 'temperature', 'top_p', 'n', 'stream', 'stream_options', 'include_usage', 'include_obfuscation', 'stop', 'max_tokens',
  'max_completion_tokens', 'presence_penalty', 'frequency_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'user', 'seed', 'service_tier',
  'tool_choice', 'parallel_tool_calls', 'reasoning_effort', 'verbosity', 'modalities', 'prediction', 'web_search_options', 'search_context_size',
  'user_location', 'approximate', 'city', 'country', 'region', 'timezone', 'metadata', 'store', 'prompt_cache_key', 'safety_identifier',
  'prompt_cache_retention', 'allowed_tools', 'mode', 'voice', 'cache_control',
  // answer and chunk
  'choices', 'message', 'delta', 'finish_reason', 'object', 'created', 'system_fingerprint', 'usage', 'prompt_tokens', 'completion_tokens',
  'total_tokens', 'prompt_tokens_details', 'completion_tokens_details', 'cached_tokens', 'audio_tokens', 'reasoning_tokens',
  'accepted_prediction_tokens', 'rejected_prediction_tokens', 'annotations', 'url_citation', 'start_index', 'end_index', 'title', 'token',
  'bytes', 'logprob', 'expires_at', 'transcript', 'obfuscation', 'reasoning_content', 'reasoning',
  // JSON Schema keywords
  '$schema', '$id', '$ref', '$defs', '$comment', '$anchor', '$dynamicRef', '$dynamicAnchor', 'definitions', 'properties', 'patternProperties',
  'additionalProperties', 'unevaluatedProperties', 'required', 'items', 'prefixItems', 'additionalItems', 'enum', 'const', 'anyOf', 'oneOf',
  'allOf', 'not', 'if', 'then', 'else', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minLength', 'maxLength',
  'pattern', 'minItems', 'maxItems', 'uniqueItems', 'contains', 'minContains', 'maxContains', 'minProperties', 'maxProperties',
  'propertyNames', 'dependentSchemas', 'dependentRequired', 'default', 'examples', 'nullable', 'readOnly', 'writeOnly', 'deprecated',
  'contentEncoding', 'contentMediaType',
]);

/** JSON Schema keywords whose object's keys are names the schema defines. */
const SCHEMA_NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependentRequired']);

/** A key that is not a name of the API or of JSON Schema: scanned as text (read like an identifier). */
function keyName(k: string, path: FieldPath, target: Target, out: FieldText[], message: number | undefined): void {
  if (k && !KNOWN_KEYS.has(k)) out.push({ path: [...path, k], target, text: identifierText(k), message, isName: true });
}

/** Identifier-like fields: `_` and `-` read as spaces. */
const IDENTIFIERS = new Set(['name']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `data:[<media type>][;base64],<data>` split up; null when the string is not a data URL. */
export function parseDataUrl(url: string): { mediaType: string; base64: boolean; data: string } | null {
  if (url.length < 5 || url.slice(0, 5).toLowerCase() !== 'data:') return null;
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const meta = url.slice(5, comma).split(';').map((s) => s.trim());
  const base64 = meta.length > 1 && meta[meta.length - 1]!.toLowerCase() === 'base64';
  return { mediaType: (meta[0] || 'text/plain').toLowerCase(), base64, data: url.slice(comma + 1) };
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Percent-decoded bytes of a non-base64 data: URL (characters not escaped are UTF-8). */
function percentBytes(data: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < data.length; i++) {
    const c = data[i]!;
    if (c === '%' && /^[0-9a-fA-F]{2}$/.test(data.slice(i + 1, i + 3))) {
      out.push(parseInt(data.slice(i + 1, i + 3), 16));
      i += 2;
    } else for (const b of Buffer.from(c, 'utf8')) out.push(b);
  }
  return Buffer.from(out);
}

/**
 * What a `data:` URL (or a bare base64 file payload) carries: its text, read by declared or
 * sniffed charset and compression (src/scan-service/payload-text.ts), `media` for an image or
 * audio, or `undecodable`. A string that is not a data URL, or whose base64 is malformed, is
 * its own text (scanned as it is).
 */
export function dataPayload(value: string, bareBase64 = false): Payload {
  const d = bareBase64 ? { mediaType: '', base64: true, data: value } : parseDataUrl(value);
  if (!d) return { kind: 'text', text: value, encoding: 'none' };
  const charset = bareBase64 ? null : charsetOf(value.slice(5, value.indexOf(',')).split(';').slice(1));
  if (!d.base64) return payloadText(percentBytes(d.data), d.mediaType, charset);
  const clean = d.data.replace(/\s+/g, '');
  if (!BASE64.test(clean)) return { kind: 'text', text: value, encoding: 'none' };
  // A large image is known by its first bytes: look at a head before decoding all of it.
  if (clean.length > 8192 && payloadText(Buffer.from(clean.slice(0, 64), 'base64').subarray(0, 16), d.mediaType).kind === 'media') return { kind: 'media' };
  return payloadText(Buffer.from(clean, 'base64'), d.mediaType, charset);
}

/** The text of a `data:` URL or bare base64 payload, or null when it is media or cannot be read as text. */
export function dataText(value: string, bareBase64 = false): string | null {
  const p = dataPayload(value, bareBase64);
  return p.kind === 'text' ? p.text : null;
}

/** A payload's field: its text scanned, media not text, an undecodable one named (never skipped). */
function payloadField(p: Payload, path: FieldPath, target: Target, out: FieldText[], message: number | undefined): void {
  if (p.kind === 'text') {
    if (p.text) out.push({ path, target, text: p.text, message });
  } else if (p.kind === 'undecodable') out.push({ path, target, text: '', message, undecodable: p.reason });
}

function identifierText(s: string): string {
  return s.replace(/[_-]/g, ' ');
}

/** Walks any JSON value: every string as a field text, and every key that is not a known name (a
 * JSON Schema's property names, `$defs` and `patternProperties` keys, an unknown field's keys). */
function walk(v: unknown, path: FieldPath, target: Target, out: FieldText[], message: number | undefined): void {
  if (typeof v === 'string') {
    if (v) out.push({ path, target, text: v, message });
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => walk(x, [...path, i], target, out, message));
  } else if (isObject(v)) {
    // A JSON Schema's property names are read by the model whatever they are (`city` too).
    const names = SCHEMA_NAME_MAPS.has(path[path.length - 1] as string);
    for (const [k, x] of Object.entries(v)) {
      if (names && k) out.push({ path: [...path, k], target, text: identifierText(k), message, isName: true });
      else keyName(k, path, target, out, message);
      if (typeof x === 'string' && ENUMS[k]?.includes(x)) continue;
      walk(x, [...path, k], target, out, message);
    }
  }
}

/** A string field: not text if it is a known enum value, else scanned. */
function field(k: string, v: unknown, path: FieldPath, target: Target, out: FieldText[], message?: number): void {
  if (typeof v === 'string' && ENUMS[k]?.includes(v)) return;
  if (Array.isArray(v) && ENUMS[k]) return v.forEach((x, i) => field(k, x, [...path, i], target, out, message));
  if (typeof v === 'string' && IDENTIFIERS.has(k)) {
    if (v) out.push({ path, target, text: identifierText(v), message });
    return;
  }
  walk(v, path, target, out, message);
}

function contentPart(part: unknown, path: FieldPath, target: Target, out: FieldText[], message: number, userTurn: boolean): void {
  if (!isObject(part)) return walk(part, path, target, out, message);
  for (const [k, v] of Object.entries(part)) {
    keyName(k, path, 'rag', out, message);
    const p = [...path, k];
    if ((k === 'text' || k === 'refusal') && typeof v === 'string') {
      if (v) out.push({ path: p, target, text: v, message, ...(userTurn ? { userTurn } : {}) });
    } else if (k === 'image_url' && isObject(v)) {
      for (const [ik, iv] of Object.entries(v)) {
        keyName(ik, p, 'rag', out, message);
        if (ik === 'url' && typeof iv === 'string') payloadField(dataPayload(iv), [...p, ik], target, out, message);
        else field(ik, iv, [...p, ik], target, out, message);
      }
    } else if ((k === 'input_audio' || k === 'file') && isObject(v)) {
      for (const [fk, fv] of Object.entries(v)) {
        keyName(fk, p, 'rag', out, message);
        if ((fk === 'data' || fk === 'file_data') && typeof fv === 'string') {
          const payload = parseDataUrl(fv) ? dataPayload(fv) : dataPayload(fv, true);
          // Raw audio (pcm16) has no magic bytes: audio that is not text is audio.
          payloadField(k === 'input_audio' && payload.kind === 'undecodable' ? { kind: 'media' } : payload, [...p, fk], target, out, message);
        } else field(fk, fv, [...p, fk], target, out, message);
      }
    } else field(k, v, p, k === 'type' && typeof v === 'string' && ENUMS.type!.includes(v) ? target : 'rag', out, message);
  }
}

function toolCall(tc: unknown, path: FieldPath, target: Target, out: FieldText[], message?: number): void {
  if (!isObject(tc)) return walk(tc, path, target, out, message);
  for (const [k, v] of Object.entries(tc)) {
    keyName(k, path, target, out, message);
    if ((k === 'function' || k === 'custom') && isObject(v)) {
      for (const [fk, fv] of Object.entries(v)) {
        keyName(fk, [...path, k], target, out, message);
        field(fk, fv, [...path, k, fk], target, out, message);
      }
    } else field(k, v, [...path, k], target, out, message);
  }
}

function message(m: unknown, i: number, out: FieldText[], opts: RequestMapOptions): void {
  const path: FieldPath = ['messages', i];
  if (!isObject(m)) return walk(m, path, 'rag', out, i);
  const role = m.role;
  if ((role === 'system' || role === 'developer') && !opts.scanSystemTurns) return;
  const target: Target = role === 'tool' || role === 'function' ? 'rag' : role === 'user' || role === 'assistant' || role === 'system' || role === 'developer' ? 'prompt' : 'rag';
  for (const [k, v] of Object.entries(m)) {
    keyName(k, path, 'rag', out, i);
    const p = [...path, k];
    if (k === 'content') {
      if (typeof v === 'string') {
        if (v) out.push({ path: p, target, text: v, message: i, ...(role === 'user' ? { userTurn: true } : {}) });
      } else if (Array.isArray(v)) v.forEach((part, j) => contentPart(part, [...p, j], target, out, i, role === 'user'));
      else walk(v, p, target, out, i);
    } else if (k === 'tool_calls' && Array.isArray(v)) {
      v.forEach((tc, j) => toolCall(tc, [...p, j], 'rag', out, i));
    } else if (k === 'function_call' && isObject(v)) {
      for (const [fk, fv] of Object.entries(v)) {
        keyName(fk, p, 'rag', out, i);
        field(fk, fv, [...p, fk], 'rag', out, i);
      }
    } else field(k, v, p, MESSAGE_FIELDS.has(k) ? target : 'rag', out, i);
  }
}

function toolDefinition(t: unknown, path: FieldPath, out: FieldText[]): void {
  if (!isObject(t)) return walk(t, path, 'rag', out, undefined);
  const fn = (def: unknown, p: FieldPath) => {
    if (!isObject(def)) return walk(def, p, 'rag', out, undefined);
    for (const [k, v] of Object.entries(def)) {
      keyName(k, p, 'rag', out, undefined);
      // A parameter schema is read by the model, property names included.
      if (k === 'parameters' || k === 'format') walk(v, [...p, k], 'rag', out, undefined);
      else field(k, v, [...p, k], 'rag', out);
    }
  };
  if ('function' in t || 'custom' in t) {
    for (const [k, v] of Object.entries(t)) {
      keyName(k, path, 'rag', out, undefined);
      if (k === 'function' || k === 'custom') fn(v, [...path, k]);
      else field(k, v, [...path, k], 'rag', out);
    }
  } else fn(t, path); // legacy `functions[]` entries are the function itself
}

/** Every text of a chat request, with its target (see the module comment). */
export function requestFields(req: unknown, opts: RequestMapOptions = {}): FieldText[] {
  const out: FieldText[] = [];
  if (!isObject(req)) return out;
  for (const [k, v] of Object.entries(req)) {
    keyName(k, [], 'rag', out, undefined);
    if (REQUEST_NOT_TEXT.has(k)) continue;
    if (k === 'messages' && Array.isArray(v)) v.forEach((m, i) => message(m, i, out, opts));
    else if ((k === 'tools' || k === 'functions') && Array.isArray(v)) v.forEach((t, i) => toolDefinition(t, [k, i], out));
    else if (k === 'response_format' && isObject(v)) {
      for (const [rk, rv] of Object.entries(v)) {
        keyName(rk, [k], 'rag', out, undefined);
        if (rk === 'json_schema') walk(rv, [k, rk], 'rag', out, undefined);
        else field(rk, rv, [k, rk], 'rag', out);
      }
    } else if ((k === 'tool_choice' || k === 'function_call') && isObject(v)) toolCall(v, [k], 'rag', out);
    else field(k, v, [k], 'rag', out);
  }
  return out;
}

/** Every text of a list of chat messages (/v1/scan `messages`): the request map over `{messages}`. */
export function messageFields(messages: unknown[], opts: RequestMapOptions = {}): FieldText[] {
  return requestFields({ messages }, opts);
}

function answerObject(v: unknown, path: FieldPath, out: FieldText[]): void {
  if (!isObject(v)) return walk(v, path, 'output', out, undefined);
  const parent = path[path.length - 2];
  const last = path[path.length - 1];
  for (const [k, x] of Object.entries(v)) {
    keyName(k, path, 'output', out, undefined);
    // Ids of tool calls and audio answers are the provider's, not the model's.
    if (k === 'id' && (parent === 'tool_calls' || last === 'audio')) continue;
    const p = [...path, k];
    if (k === 'logprobs') logprobs(x, p, out);
    else if (k === 'data' && last === 'audio' && typeof x === 'string') {
      const t = dataText(x, true);
      if (t) out.push({ path: p, target: 'output', text: t });
    } else if (isObject(x)) answerObject(x, p, out);
    else if (Array.isArray(x)) x.forEach((y, j) => (isObject(y) ? answerObject(y, [...p, j], out) : field(k, y, [...p, j], 'output', out)));
    else field(k, x, p, 'output', out);
  }
}

/** Log-probabilities: each list's tokens joined (a secret spans tokens); bytes and numbers are not text. */
function logprobs(v: unknown, path: FieldPath, out: FieldText[]): void {
  if (!isObject(v)) return walk(v, path, 'output', out, undefined);
  for (const [k, list] of Object.entries(v)) {
    keyName(k, path, 'output', out, undefined);
    if (!Array.isArray(list)) {
      walk(list, [...path, k], 'output', out, undefined);
      continue;
    }
    let joined = '';
    const alternatives: string[] = [];
    for (const item of list) {
      if (!isObject(item)) continue;
      if (typeof item.token === 'string') joined += item.token;
      for (const [ik, iv] of Object.entries(item)) {
        keyName(ik, [...path, k], 'output', out, undefined);
        if (ik === 'token' || ik === 'bytes' || ik === 'logprob') continue;
        if (ik === 'top_logprobs' && Array.isArray(iv)) {
          for (const alt of iv) if (isObject(alt) && typeof alt.token === 'string') alternatives.push(alt.token);
        } else walk(iv, [...path, k, ik], 'output', out, undefined);
      }
    }
    if (joined) out.push({ path: [...path, k, 'token'], target: 'output', text: joined });
    if (alternatives.length) out.push({ path: [...path, k, 'top_logprobs'], target: 'output', text: alternatives.join(' ') });
  }
}

/** Every text of a non-streamed chat completion (all `output`). */
export function answerFields(completion: unknown): FieldText[] {
  const out: FieldText[] = [];
  if (!isObject(completion)) return out;
  for (const [k, v] of Object.entries(completion)) {
    if (ANSWER_NOT_TEXT.has(k)) continue;
    if (k === 'choices' && Array.isArray(v)) {
      v.forEach((ch, i) => {
        if (!isObject(ch)) return walk(ch, [k, i], 'output', out, undefined);
        for (const [ck, cv] of Object.entries(ch)) if (ck !== 'index') answerObject({ [ck]: cv }, [k, i], out);
      });
    } else answerObject({ [k]: v }, [], out);
  }
  return out;
}

/**
 * Every text of one streamed chunk, each under a key that is the same for the pieces of one
 * field across chunks (tool calls by their own `index`), so a stream's texts are the
 * concatenation of each key's pieces.
 */
export function chunkFields(chunk: unknown): (FieldText & { key: string })[] {
  const out: (FieldText & { key: string })[] = [];
  if (!isObject(chunk)) return out;
  for (const [k, v] of Object.entries(chunk)) {
    if (ANSWER_NOT_TEXT.has(k)) continue;
    if (k === 'choices' && Array.isArray(v)) {
      for (const ch of v) {
        if (!isObject(ch)) continue;
        const index = typeof ch.index === 'number' ? ch.index : 0;
        for (const [ck, cv] of Object.entries(ch)) {
          if (ck === 'index') continue;
          const texts: FieldText[] = [];
          if (ck === 'delta' && isObject(cv)) {
            for (const [dk, dv] of Object.entries(cv)) {
              if (dk === 'tool_calls' && Array.isArray(dv)) {
                for (const d of dv) {
                  const ti = isObject(d) && typeof d.index === 'number' ? d.index : 0;
                  const f: FieldText[] = [];
                  answerObject(d, ['tool_calls', ti], f);
                  for (const x of f) out.push({ ...x, path: ['choices', index, 'delta', ...x.path], key: `${index}/${x.path.join('/')}` });
                }
              } else answerObject({ [dk]: dv }, [], texts);
            }
            for (const x of texts) out.push({ ...x, path: ['choices', index, 'delta', ...x.path], key: `${index}/delta/${x.path.join('/')}` });
          } else {
            answerObject({ [ck]: cv }, [], texts);
            for (const x of texts) out.push({ ...x, path: ['choices', index, ...x.path], key: `${index}/${x.path.join('/')}` });
          }
        }
      }
    } else {
      const texts: FieldText[] = [];
      answerObject({ [k]: v }, [], texts);
      for (const x of texts) out.push({ ...x, key: `chunk/${x.path.join('/')}` });
    }
  }
  return out;
}

/** All the texts of a stream of chunks, each field's pieces concatenated, fields apart. */
export function streamText(chunks: unknown[]): string {
  const byKey = new Map<string, string>();
  for (const c of chunks) {
    for (const f of chunkFields(c)) {
      // A key name repeats on every chunk that carries it: one copy of each name, not a concatenation.
      if (f.isName) byKey.set(`${f.key}#${f.text}`, f.text);
      else byKey.set(f.key, (byKey.get(f.key) ?? '') + f.text);
    }
  }
  return [...byKey.values()].filter(Boolean).join('\n\n');
}

/** The output text of a completion: every field's text, fields apart. */
export function answerText(completion: unknown): string {
  return answerFields(completion)
    .map((f) => f.text)
    .join('\n\n');
}

const FIELD_SEPARATOR = '\n\n';
/** Between user turns in the joined text: one space, so an instruction spread one word (or one
 * letter: the normaliser joins s p a c e d letters) per message reads whole. */
const TURN_SEPARATOR = ' ';

/**
 * Scan groups of a request's fields: one text per target. The `prompt` text starts with every
 * user turn joined by TURN_SEPARATOR (an instruction spread over many short messages is seen
 * whole), followed by the other prompt fields; fields are otherwise kept apart by a blank line.
 * `segments` map every offset of a group's text back to its field.
 */
export function scanGroups(fields: FieldText[]): ScanGroup[] {
  const order: Target[] = ['prompt', 'rag', 'output'];
  const groups: ScanGroup[] = [];
  for (const target of order) {
    const mine = fields.filter((f) => f.target === target && f.undecodable === undefined);
    if (mine.length === 0) continue;
    const turns = mine.filter((f) => f.userTurn);
    const rest = mine.filter((f) => !f.userTurn);
    let text = '';
    const segments: Segment[] = [];
    const add = (f: FieldText, sep: string) => {
      if (text.length > 0) text += sep;
      segments.push({ start: text.length, end: text.length + f.text.length, path: f.path, ...(f.message !== undefined ? { message: f.message } : {}) });
      text += f.text;
    };
    for (const f of turns) add(f, TURN_SEPARATOR);
    for (const f of rest) add(f, FIELD_SEPARATOR);
    groups.push({ target, text, segments });
  }
  return groups;
}

/** Which field a span of a group's text starts in, and the span's offsets inside that field. */
export function locate(group: ScanGroup, span: Span): { path: FieldPath; message?: number; span: Span } | null {
  let lo = 0;
  let hi = group.segments.length - 1;
  let found: Segment | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const s = group.segments[mid]!;
    if (span.start < s.start) hi = mid - 1;
    else if (span.start >= s.end && !(s.start === s.end && span.start === s.start)) lo = mid + 1;
    else {
      found = s;
      break;
    }
  }
  // A span starting on a separator belongs to the field after it.
  if (!found) found = group.segments[lo] ?? null;
  if (!found) return null;
  return {
    path: found.path,
    ...(found.message !== undefined ? { message: found.message } : {}),
    span: { start: Math.max(0, span.start - found.start), end: Math.min(found.end, span.end) - found.start },
  };
}

/** `messages[3].content[0].text` */
export function pathString(path: FieldPath): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${p}` : p;
  return s;
}

/** Scan groups as parts of one scan subject, each able to map its spans back to message and field. */
export function scanParts(fields: FieldText[]): { text: string; target: Target; locate: (span: Span) => { message?: number; field: string; span: Span } | null }[] {
  return scanGroups(fields).map((g) => ({
    text: g.text,
    target: g.target,
    locate: (span: Span) => {
      const at = locate(g, span);
      return at ? { ...(at.message !== undefined ? { message: at.message } : {}), field: pathString(at.path), span: at.span } : null;
    },
  }));
}

/**
 * One `input.undecodable_content` finding per payload the map could not read as text (it is not
 * scanned, and says so in the record): `low` where policy forwards it (flag), `high` where it
 * blocks (/v1/scan reports what the proxy would do).
 */
export function undecodableFindings(fields: FieldText[], severity: Severity): ExtraFinding[] {
  return fields
    .filter((f) => f.undecodable !== undefined)
    .map((f) => ({
      attackType: 'obfuscation',
      severity,
      ruleId: 'input.undecodable_content',
      message: `Not scanned: ${pathString(f.path)} cannot be read as text (${f.undecodable}).`,
    }));
}
