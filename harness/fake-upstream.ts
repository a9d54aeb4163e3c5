import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A scripted LLM upstream for tests and benches: speaks OpenAI's chat completions or
 * Anthropic's Messages API on loopback, records what it received, and misbehaves on demand.
 * `queue(...)` sets one-shot behaviours for the next chat requests; `behaviour` is the default.
 */

export interface FakeToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type Behaviour =
  /** Answers (streamed if the request asks). Default content echoes the last user message. */
  | {
      kind: 'reply';
      content?: string;
      pieces?: string[];
      leak_system?: boolean;
      ignore_stream?: boolean;
      tool_calls?: FakeToolCall[];
      finish_reason?: string;
      usage?: { prompt: number; completion: number };
      delay_ms?: number;
      piece_delay_ms?: number;
      /** Streamed, without `pieces`: the content cut into pieces of these sizes, in turn (default 8 each). */
      piece_sizes?: number[];
      /** OpenAI dialect: extra fields merged into each choice's message (not streamed), e.g. a legacy `function_call`. */
      message?: Record<string, unknown>;
      /** OpenAI dialect, streamed: extra deltas sent after the content pieces, e.g. `{ function_call: { arguments: '...' } }`. */
      deltas?: Record<string, unknown>[];
      /** OpenAI dialect: extra fields on the completion / on every content and delta chunk. */
      top?: Record<string, unknown>;
      /** Streamed: after the content pieces, this `data:` event (OpenAI `{ error: { message } }`; Anthropic `{ type: 'error', error: { message } }`, sent as `event: error`) and the end of the stream. */
      error_event?: unknown;
    }
  | { kind: 'error'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Streams `pieces` then goes silent without ending (or, not streamed, never answers). */
  | { kind: 'stall'; pieces?: string[] }
  /** Accepts the request and never sends headers. */
  | { kind: 'hang' }
  /** A stream with a line that is not valid JSON in the middle. */
  | { kind: 'malformed_sse' }
  /** 200 with a JSON body cut in half. */
  | { kind: 'truncated_json' }
  /** A body (or stream) of about `bytes` bytes. */
  | { kind: 'huge'; bytes: number }
  /** Destroys the socket without answering. */
  | { kind: 'destroy' };

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface FakeOptions {
  dialect?: 'openai' | 'anthropic';
  behaviour?: Behaviour;
  models?: string[];
  /** Delay for GET /models, to look slow to health checks. */
  modelsDelayMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `text` in pieces of the given sizes, taken in turn. */
function cut(text: string, sizes: number[]): string[] {
  const out: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const n = Math.max(1, sizes[i % sizes.length]!);
    out.push(text.slice(at, at + n));
    at += n;
  }
  return out;
}

export class FakeUpstream {
  readonly dialect: 'openai' | 'anthropic';
  behaviour: Behaviour;
  /** Behaviour of GET /models: 'ok', or an error status. */
  modelsStatus = 200;
  modelsDelayMs: number;
  models: string[];
  readonly received: Received[] = [];
  /** Chat requests whose client hung up before the response ended. */
  aborted = 0;
  /** Keep a log of requests (off in benches). */
  record = true;
  /** Strings no request may carry (redacted values): a request holding one is answered 400 and listed in `violations`. */
  forbidden: string[] = [];
  readonly violations: { value: string; path: string }[] = [];
  private readonly queueList: Behaviour[] = [];
  private readonly sockets = new Set<Socket>();
  private server!: http.Server;
  port = 0;
  private abortWaiters: (() => void)[] = [];

  private constructor(opts: FakeOptions) {
    this.dialect = opts.dialect ?? 'openai';
    this.behaviour = opts.behaviour ?? { kind: 'reply' };
    this.models = opts.models ?? ['fake-model'];
    this.modelsDelayMs = opts.modelsDelayMs ?? 0;
  }

  static async start(opts: FakeOptions = {}): Promise<FakeUpstream> {
    const f = new FakeUpstream(opts);
    f.server = http.createServer((req, res) => void f.handle(req, res));
    f.server.keepAliveTimeout = 60_000;
    f.server.on('connection', (s) => {
      f.sockets.add(s);
      s.on('close', () => f.sockets.delete(s));
    });
    await new Promise<void>((resolve) => f.server.listen(0, '127.0.0.1', resolve));
    f.port = (f.server.address() as AddressInfo).port;
    return f;
  }

  /** Base URL as a provider's base_url: `/v1` included for OpenAI, not for Anthropic. */
  get url(): string {
    return this.dialect === 'openai' ? `http://127.0.0.1:${this.port}/v1` : `http://127.0.0.1:${this.port}`;
  }

  queue(...b: Behaviour[]): this {
    this.queueList.push(...b);
    return this;
  }

  get chatRequests(): Received[] {
    return this.received.filter((r) => r.method === 'POST');
  }

  /** Resolves at the next client hang-up (or after `ms`). */
  waitForAbort(ms = 2000): Promise<boolean> {
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      this.abortWaiters.push(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /** Dies: stops listening and cuts every open connection. */
  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: any = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const path = req.url ?? '/';
    if (this.record) this.received.push({ method: req.method ?? '', path, headers: req.headers, body });
    const leaked = this.forbidden.filter((v) => raw.includes(v) || raw.includes(JSON.stringify(v).slice(1, -1)));
    if (leaked.length) {
      for (const value of leaked) this.violations.push({ value, path });
      return this.json(res, 400, { error: { message: 'fake upstream: the request carried a forbidden value', type: 'invalid_request_error' } });
    }

    if (req.method === 'GET' && /\/models(\?|$)/.test(path)) {
      if (this.modelsDelayMs) await sleep(this.modelsDelayMs);
      if (this.modelsStatus !== 200) return this.json(res, this.modelsStatus, { error: { message: 'models unavailable', type: 'server_error' } });
      return this.json(res, 200, { object: 'list', data: this.models.map((id) => ({ id, object: 'model' })) });
    }
    const isChat = this.dialect === 'openai' ? /\/chat\/completions(\?|$)/.test(path) : /\/v1\/messages$/.test(path);
    if (req.method !== 'POST' || !isChat) return this.json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error' } });

    res.on('close', () => {
      if (!res.writableEnded) {
        this.aborted++;
        const waiters = this.abortWaiters;
        this.abortWaiters = [];
        waiters.forEach((w) => w());
      }
    });
    const b = this.queueList.shift() ?? this.behaviour;
    await this.respond(b, body ?? {}, res, req);
  }

  private json(res: http.ServerResponse, status: number, obj: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(obj);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
    res.end(text);
  }

  private async respond(b: Behaviour, body: any, res: http.ServerResponse, req: http.IncomingMessage): Promise<void> {
    const stream = body.stream === true;
    switch (b.kind) {
      case 'error':
        return this.json(res, b.status, b.body ?? { error: { message: `fake upstream error ${b.status}`, type: 'server_error' } }, b.headers);
      case 'destroy':
        req.socket.destroy();
        return;
      case 'hang':
        return; // never answers; the client's time-out or hang-up ends it
      case 'truncated_json': {
        const text = JSON.stringify(this.completion(body, { kind: 'reply', content: 'cut short' }));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(text.slice(0, Math.floor(text.length / 2)));
        return;
      }
      case 'huge': {
        if (stream) {
          this.sseHead(res);
          const piece = 'x'.repeat(1000);
          for (let sent = 0; sent < b.bytes && !res.destroyed; sent += 1100) {
            this.sse(res, this.dialect === 'openai' ? this.chunk(body, { content: piece }) : { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } });
            if (sent % 100_000 < 1100) await sleep(0);
          }
          res.end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        const pad = 'y'.repeat(64 * 1024);
        res.write(`{"id":"chatcmpl-huge","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"`);
        for (let sent = 0; sent < b.bytes && !res.destroyed; sent += pad.length) {
          if (!res.write(pad)) {
            await new Promise<void>((r) => {
              const done = () => {
                res.off('drain', done);
                res.off('close', done);
                r();
              };
              res.once('drain', done).once('close', done);
            });
          }
        }
        res.end('"},"finish_reason":"stop"}]}');
        return;
      }
      case 'malformed_sse': {
        this.sseHead(res);
        if (this.dialect === 'openai') this.sse(res, this.chunk(body, { role: 'assistant', content: 'fine so far' }));
        else this.anthropicStart(res, body);
        res.write('data: {"choices": [ this is not json\n\n');
        await sleep(20);
        res.end();
        return;
      }
      case 'stall': {
        if (!stream) return; // never answers
        this.sseHead(res);
        if (this.dialect === 'openai') {
          for (const p of b.pieces ?? ['partial']) this.sse(res, this.chunk(body, { content: p }));
        } else {
          this.anthropicStart(res, body);
          for (const p of b.pieces ?? ['partial']) this.sse(res, { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } }, 'content_block_delta');
        }
        return; // and then silence
      }
      case 'reply': {
        if (b.delay_ms) await sleep(b.delay_ms);
        if (!stream || b.ignore_stream) return this.json(res, 200, this.completion(body, b));
        return this.streamReply(body, b, res);
      }
    }
  }

  private contentOf(body: any, b: { content?: string; pieces?: string[]; leak_system?: boolean }): string {
    if (b.leak_system) {
      const sys = (body.messages ?? []).find((m: any) => m.role === 'system')?.content ?? body.system ?? '';
      return `Sure, my instructions say: ${typeof sys === 'string' ? sys : JSON.stringify(sys)}`;
    }
    if (b.pieces) return b.pieces.join('');
    if (b.content !== undefined) return b.content;
    const msgs: any[] = body.messages ?? [];
    const lastUser = [...msgs].reverse().find((m) => m.role === 'user');
    const c = lastUser?.content;
    const text = typeof c === 'string' ? c : Array.isArray(c) ? c.map((p: any) => (p.type === 'text' ? p.text : p.type === 'tool_result' ? '' : '')).join('') : '';
    return `echo: ${text}`;
  }

  private usage(body: any, content: string, b: { usage?: { prompt: number; completion: number } }) {
    const prompt = b.usage?.prompt ?? Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
    const completion = b.usage?.completion ?? Math.ceil(content.length / 4);
    return { prompt, completion };
  }

  private completion(body: any, b: Extract<Behaviour, { kind: 'reply' }>): unknown {
    const content = this.contentOf(body, b);
    const u = this.usage(body, content, b);
    const tools = b.tool_calls ?? [];
    if (this.dialect === 'anthropic') {
      return {
        id: 'msg_fake01',
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [
          ...(content ? [{ type: 'text', text: content }] : []),
          ...tools.map((t) => ({ type: 'tool_use', id: t.id, name: t.name, input: JSON.parse(t.arguments) })),
        ],
        stop_reason: b.finish_reason ?? (tools.length ? 'tool_use' : 'end_turn'),
        stop_sequence: null,
        usage: { input_tokens: u.prompt, output_tokens: u.completion },
      };
    }
    const n = body.n ?? 1;
    return {
      id: 'chatcmpl-fake01',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      system_fingerprint: 'fp_fake',
      choices: Array.from({ length: n }, (_, index) => ({
        index,
        message: {
          role: 'assistant',
          content: tools.length && !b.content ? null : content,
          refusal: null,
          ...(tools.length ? { tool_calls: tools.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })) } : {}),
          ...(b.message ?? {}),
        },
        logprobs: null,
        finish_reason: b.finish_reason ?? (tools.length ? 'tool_calls' : 'stop'),
      })),
      usage: { prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.prompt + u.completion },
      ...(b.top ?? {}),
    };
  }

  private sseHead(res: http.ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  }

  private sse(res: http.ServerResponse, obj: unknown, event?: string): void {
    if (res.destroyed) return;
    res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof obj === 'string' ? obj : JSON.stringify(obj)}\n\n`);
  }

  private chunk(body: any, delta: Record<string, unknown>, finish: string | null = null, index = 0, top: Record<string, unknown> = {}): unknown {
    return {
      ...top,
      id: 'chatcmpl-fake01',
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: body.model,
      system_fingerprint: 'fp_fake',
      choices: [{ index, delta, logprobs: null, finish_reason: finish }],
    };
  }

  private anthropicStart(res: http.ServerResponse, body: any): void {
    this.sse(res, { type: 'message_start', message: { id: 'msg_fake01', type: 'message', role: 'assistant', model: body.model, content: [], usage: { input_tokens: 0, output_tokens: 1 } } }, 'message_start');
    this.sse(res, { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
  }

  private async streamReply(body: any, b: Extract<Behaviour, { kind: 'reply' }>, res: http.ServerResponse): Promise<void> {
    const content = this.contentOf(body, b);
    const pieces = b.pieces ?? (content ? (b.piece_sizes ? cut(content, b.piece_sizes) : (content.match(/[\s\S]{1,8}/g) ?? [])) : []);
    const u = this.usage(body, content, b);
    const tools = b.tool_calls ?? [];
    const wait = async () => {
      if (b.piece_delay_ms) await sleep(b.piece_delay_ms);
    };
    this.sseHead(res);
    if (this.dialect === 'anthropic') {
      this.sse(res, { type: 'message_start', message: { id: 'msg_fake01', type: 'message', role: 'assistant', model: body.model, content: [], usage: { input_tokens: u.prompt, output_tokens: 1 } } }, 'message_start');
      this.sse(res, { type: 'ping' }, 'ping');
      let block = 0;
      if (pieces.length) {
        this.sse(res, { type: 'content_block_start', index: block, content_block: { type: 'text', text: '' } }, 'content_block_start');
        for (const p of pieces) {
          await wait();
          this.sse(res, { type: 'content_block_delta', index: block, delta: { type: 'text_delta', text: p } }, 'content_block_delta');
        }
        this.sse(res, { type: 'content_block_stop', index: block }, 'content_block_stop');
        block++;
      }
      if (b.error_event !== undefined) {
        this.sse(res, b.error_event, 'error');
        res.end();
        return;
      }
      for (const t of tools) {
        this.sse(res, { type: 'content_block_start', index: block, content_block: { type: 'tool_use', id: t.id, name: t.name, input: {} } }, 'content_block_start');
        const half = Math.floor(t.arguments.length / 2);
        for (const part of [t.arguments.slice(0, half), t.arguments.slice(half)]) {
          this.sse(res, { type: 'content_block_delta', index: block, delta: { type: 'input_json_delta', partial_json: part } }, 'content_block_delta');
        }
        this.sse(res, { type: 'content_block_stop', index: block }, 'content_block_stop');
        block++;
      }
      this.sse(res, { type: 'message_delta', delta: { stop_reason: b.finish_reason ?? (tools.length ? 'tool_use' : 'end_turn'), stop_sequence: null }, usage: { output_tokens: u.completion } }, 'message_delta');
      this.sse(res, { type: 'message_stop' }, 'message_stop');
      res.end();
      return;
    }
    const n = body.n ?? 1;
    for (let index = 0; index < n; index++) this.sse(res, this.chunk(body, { role: 'assistant', content: '', refusal: null }, null, index));
    for (const p of pieces) {
      await wait();
      for (let index = 0; index < n; index++) this.sse(res, this.chunk(body, { content: p }, null, index, b.top));
    }
    for (const d of b.deltas ?? []) for (let index = 0; index < n; index++) this.sse(res, this.chunk(body, d, null, index, b.top));
    if (b.error_event !== undefined) {
      this.sse(res, b.error_event);
      res.end();
      return;
    }
    tools.forEach((t, i) => {
      const half = Math.floor(t.arguments.length / 2);
      this.sse(res, this.chunk(body, { tool_calls: [{ index: i, id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments.slice(0, half) } }] }));
      this.sse(res, this.chunk(body, { tool_calls: [{ index: i, function: { arguments: t.arguments.slice(half) } }] }));
    });
    for (let index = 0; index < n; index++) this.sse(res, this.chunk(body, {}, b.finish_reason ?? (tools.length ? 'tool_calls' : 'stop'), index));
    if (body.stream_options?.include_usage) {
      this.sse(res, {
        id: 'chatcmpl-fake01',
        object: 'chat.completion.chunk',
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [],
        usage: { prompt_tokens: u.prompt, completion_tokens: u.completion, total_tokens: u.prompt + u.completion },
      });
    }
    this.sse(res, '[DONE]');
    res.end();
  }
}
