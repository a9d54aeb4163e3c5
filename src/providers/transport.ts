import { Agent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import {
  UpstreamError,
  upstreamAborted,
  upstreamBadResponse,
  upstreamConnectError,
  upstreamStatusError,
  upstreamTimeout,
  upstreamTooLarge,
} from './errors.js';
import type { ProviderConfig } from './types.js';

/**
 * HTTP to one upstream, on undici with a keep-alive pool per provider. Everything that can go
 * wrong on the wire ends here as an UpstreamError: connection failures, time-outs (headers,
 * whole body, silence inside a stream), non-2xx answers, oversized bodies, malformed SSE.
 */

export interface UpstreamRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  signal: AbortSignal;
  /** Streamed: headers within timeout_ms, then at most stream_idle_timeout_ms of silence. */
  streaming: boolean;
}

export interface OpenResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
  /** Call when done to clear the whole-call timer of non-streamed requests. */
  done(): void;
  /** Turns an error met while reading the body into an UpstreamError (knows who aborted). */
  fail(err: unknown): UpstreamError;
}

export class Transport {
  private readonly agent: Agent;

  constructor(private readonly provider: ProviderConfig) {
    this.agent = new Agent({ keepAliveTimeout: 30_000, connections: 512, pipelining: 1 });
  }

  /** Sends the request; resolves once a 2xx arrived, throws UpstreamError otherwise. */
  async open(req: UpstreamRequest): Promise<OpenResponse> {
    const p = this.provider;
    // One controller for everything: the client's disconnect and our whole-call time-out.
    const ctrl = new AbortController();
    let timedOut = false;
    const onClientAbort = () => ctrl.abort();
    if (req.signal.aborted) throw upstreamAborted(p.name);
    req.signal.addEventListener('abort', onClientAbort, { once: true });
    const timer = req.streaming
      ? null
      : setTimeout(() => {
          timedOut = true;
          ctrl.abort();
        }, p.timeout_ms);
    const done = () => {
      if (timer) clearTimeout(timer);
      req.signal.removeEventListener('abort', onClientAbort);
    };
    const translate = (err: unknown): UpstreamError => {
      done();
      if (err instanceof UpstreamError) return err;
      if (timedOut) return upstreamTimeout(p.name, `no complete response within ${p.timeout_ms} ms`);
      if (req.signal.aborted) return upstreamAborted(p.name);
      return mapTransportError(p, err);
    };

    let res: Dispatcher.ResponseData;
    try {
      res = await request(req.url, {
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal: ctrl.signal,
        dispatcher: this.agent,
        headersTimeout: p.timeout_ms,
        bodyTimeout: req.streaming ? p.stream_idle_timeout_ms : p.timeout_ms,
      });
    } catch (err) {
      throw translate(err);
    }

    if (res.statusCode < 200 || res.statusCode >= 300) {
      let text = '';
      try {
        text = await readBounded(res.body, 64 * 1024, p.name, true);
      } catch (err) {
        if (err instanceof UpstreamError && err.failure !== 'too_large') throw translate(err);
      }
      done();
      const retryAfter = res.headers['retry-after'];
      throw upstreamStatusError(p.name, res.statusCode, text, [p.api_key], Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
    }

    return { status: res.statusCode, headers: res.headers, body: res.body, done, fail: translate };
  }

  /** Non-streamed JSON: the whole body, bounded, parsed. */
  async json<T>(req: UpstreamRequest): Promise<T> {
    const res = await this.open(req);
    let text: string;
    try {
      text = await readBounded(res.body, this.provider.max_response_bytes, this.provider.name, false);
    } catch (err) {
      throw res.fail(err);
    } finally {
      res.done();
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw upstreamBadResponse(this.provider.name, text.length === 0 ? 'empty body' : 'truncated or malformed JSON');
    }
  }

  /** The whole body of an opened response, bounded by max_response_bytes. */
  readBody(res: OpenResponse): Promise<string> {
    return readBounded(res.body, this.provider.max_response_bytes, this.provider.name, false);
  }

  /** Streamed: the SSE events of the body, bounded in total size. */
  async *sse(res: OpenResponse): AsyncGenerator<EventSourceMessage> {
    const p = this.provider;
    const queue: EventSourceMessage[] = [];
    let parseError: UpstreamError | null = null;
    const parser = createParser({
      onEvent: (ev) => queue.push(ev),
      onError: (err) => {
        parseError ??= upstreamBadResponse(p.name, `malformed server-sent event line (${err.type})`);
      },
      maxBufferSize: p.max_response_bytes,
    } as Parameters<typeof createParser>[0]);
    const decoder = new TextDecoder('utf-8');
    let total = 0;
    try {
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        total += chunk.length;
        if (total > p.max_response_bytes) {
          res.body.destroy();
          throw upstreamTooLarge(p.name, p.max_response_bytes);
        }
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (parseError) throw parseError;
        while (queue.length > 0) yield queue.shift()!;
      }
      parser.feed(decoder.decode());
      if (parseError) throw parseError;
      while (queue.length > 0) yield queue.shift()!;
    } catch (err) {
      if (!res.body.destroyed) res.body.destroy();
      throw res.fail(err);
    } finally {
      res.done();
      // Leaving the loop early (client gone, output blocked) must release the socket too.
      if (!res.body.destroyed) res.body.destroy();
    }
  }

  async close(): Promise<void> {
    await this.agent.close().catch(() => undefined);
  }
}

const ignore = () => undefined;

/**
 * The body as text, at most `limit` bytes (more: an error, or with `truncateInsteadOfThrow` the
 * first chunks). Read with 'data' events rather than `for await`: the async iterator costs a
 * promise and a result object per chunk and an end-of-stream watcher per body, on every call.
 * Errors are what the iterator would throw: the stream's own, or a premature close.
 */
function readBounded(
  body: Dispatcher.ResponseData['body'],
  limit: number,
  provider: string,
  truncateInsteadOfThrow: boolean,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const parts: Buffer[] = [];
    let total = 0;
    const cleanup = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limit) {
        cleanup();
        body.on('error', ignore); // undici reports its own destroy() as an AbortError
        body.destroy();
        if (truncateInsteadOfThrow) resolve(Buffer.concat(parts).toString('utf8'));
        else reject(upstreamTooLarge(provider, limit));
        return;
      }
      parts.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts).toString('utf8'));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const premature = () => Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
    const onClose = () => {
      cleanup();
      reject(premature());
    };
    // Already failed before anyone listened: its events are gone.
    if (body.destroyed) return reject(body.errored ?? premature());
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}

function mapTransportError(p: ProviderConfig, err: unknown): UpstreamError {
  if (err instanceof undiciErrors.HeadersTimeoutError) return upstreamTimeout(p.name, `no response headers within ${p.timeout_ms} ms`);
  if (err instanceof undiciErrors.BodyTimeoutError) return upstreamTimeout(p.name, `stream stalled for ${p.stream_idle_timeout_ms} ms`);
  if (err instanceof undiciErrors.ConnectTimeoutError) return upstreamTimeout(p.name, 'connect');
  // Connection refused/reset, socket closed by the other side, DNS: all "could not be reached".
  return upstreamConnectError(p.name);
}
