import getRawBody from 'raw-body';
import { badRequest, tooLarge, unsupportedMediaType } from '../errors.js';
import type { Middleware } from '../state.js';

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json$/i;
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Stage 3: reads JSON bodies with a size limit (413), refuses other media types (415),
 * invalid UTF-8, malformed JSON and nesting deeper than the limit (400). Built on raw-body
 * rather than koa-body because koa-body decodes invalid UTF-8 into U+FFFD without a word,
 * and a scanner must not scan something other than what it was sent.
 */
export function jsonBody(limits: () => { maxBytes: number; maxDepth: number }): Middleware {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method) || ctx.path.startsWith('/dashboard')) return next();
    const { maxBytes, maxDepth } = limits();
    const length = ctx.request.length;
    const hasBody = ctx.request.type !== '' || (length !== undefined && length > 0) || ctx.get('transfer-encoding') !== '';
    if (!hasBody) return next();
    if (!JSON_TYPE.test(ctx.request.type)) {
      throw unsupportedMediaType(`Content-Type must be application/json, got "${ctx.get('content-type') || '(none)'}".`);
    }
    if (length !== undefined && length > maxBytes) throw tooLarge(`The request body is ${length} bytes; the limit is ${maxBytes} bytes (limits.max_body_bytes).`);
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: maxBytes, length });
    } catch (err) {
      const e = err as { type?: string; status?: number };
      if (e.type === 'entity.too.large' || e.status === 413) throw tooLarge(`The request body is larger than ${maxBytes} bytes (limits.max_body_bytes).`);
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
