import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import getRawBody from 'raw-body';
import { badRequest, tooLarge, unsupportedMediaType } from '../errors.js';
import type { Middleware } from '../state.js';

const STREAMED_TYPES = new Set(['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines']);
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json$/i;
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Content-Encoding values a request body may carry, and the decoder of each. */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * Stage 3: reads JSON bodies with a size limit (413), refuses other media types (415),
 * invalid UTF-8, malformed JSON and nesting deeper than the limit (400). Built on raw-body
 * rather than koa-body because koa-body decodes invalid UTF-8 into U+FFFD without a word,
 * and a scanner must not scan something other than what it was sent.
 * Bodies with Content-Encoding gzip, deflate or br are decoded, and the size limit applies to the
 * decoded bytes (a small body that inflates past it is a 413); any other encoding is a 415.
 */
export function jsonBody(limits: () => { maxBytes: number; maxDepth: number }): Middleware {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method) || ctx.path.startsWith('/dashboard')) return next();
    // A scan job's JSONL upload is streamed by its route (routes/jobs.ts), with its own limits.
    if (ctx.path === '/v1/scan/jobs' && STREAMED_TYPES.has(ctx.request.type)) return next();
    const { maxBytes, maxDepth } = limits();
    const length = ctx.request.length;
    const hasBody = ctx.request.type !== '' || (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
    if (!hasBody) return next();
    if (!JSON_TYPE.test(ctx.request.type)) {
      throw unsupportedMediaType(`Content-Type must be application/json, got "${ctx.get('content-type') || '(none)'}".`);
    }
    const encoding = ctx.get('content-encoding').trim().toLowerCase() || 'identity';
    if (encoding !== 'identity' && !DECODERS[encoding]) {
      throw unsupportedMediaType(`Content-Encoding "${ctx.get('content-encoding')}" is not supported; send the body as identity, gzip, deflate or br.`);
    }
    if (length !== undefined && length > maxBytes) throw tooLarge(`The request body is ${length} bytes; the limit is ${maxBytes} bytes (limits.max_body_bytes).`);
    let raw: Buffer;
    const decoding = encoding === 'identity' ? undefined : DECODERS[encoding]!();
    try {
      raw = decoding ? await getRawBody(ctx.req.pipe(decoding), { limit: maxBytes }) : await getRawBody(ctx.req, { limit: maxBytes, length });
    } catch (err) {
      const e = err as { type?: string; status?: number; message?: string };
      if (decoding) {
        // Stop inflating; read (and drop) the rest of the wire body so the answer can be sent.
        ctx.req.unpipe(decoding);
        decoding.destroy();
        ctx.req.resume();
      }
      if (e.type === 'entity.too.large' || e.status === 413) {
        throw tooLarge(`The request body is larger than ${maxBytes} bytes${decoding ? ` once decoded from ${encoding}` : ''} (limits.max_body_bytes).`);
      }
      if (decoding && e.status === undefined) throw badRequest(`The request body is not valid ${encoding} data (Content-Encoding: ${encoding}).`, undefined, 'invalid_content_encoding');
      throw badRequest('The request body could not be read completely.', undefined, 'body_read_error');
    }
    let text: string;
    try {
      text = decoder.decode(raw);
    } catch {
      throw badRequest('The request body is not valid UTF-8.', undefined, 'invalid_utf8');
    }
    if (text.trim() === '') throw badRequest('The request body is empty; expected a JSON object.', undefined, 'invalid_json');
    const depth = nestingDepth(text);
    if (depth > maxDepth) throw badRequest(`The JSON body is nested ${depth} levels deep; the limit is ${maxDepth}.`, undefined, 'json_too_deep');
    try {
      ctx.state.body = JSON.parse(text);
    } catch (err) {
      throw badRequest(`The request body is not valid JSON: ${(err as Error).message}.`, undefined, 'invalid_json');
    }
    await next();
  };
}

/** Deepest bracket nesting outside strings, in one pass, before JSON.parse builds anything. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}
