import { newId } from '../../util/ids.js';
import type { Middleware } from '../state.js';

const ACCEPTED = /^[A-Za-z0-9._:-]{8,128}$/;

/** Stage 1: every request gets an id (a sane incoming X-Request-Id is kept for tracing), echoed back. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = ACCEPTED.test(incoming) ? incoming : newId('req');
    ctx.res.setHeader('X-Request-Id', ctx.state.requestId); // ctx.set without koa's per-call arrays
    await next();
  };
}
