import { UpstreamError, sanitiseUpstreamMessage, upstreamBadResponse } from './errors.js';
import { Transport } from './transport.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest, ProbeResult, ProviderAdapter, ProviderConfig } from './types.js';

/**
 * OpenAI's wire format, spoken by OpenAI itself, vLLM, Ollama, LM Studio, LiteLLM and Azure
 * OpenAI (which differs only in its URL shape and `api-key` header).
 */
export class OpenAIAdapter implements ProviderAdapter {
  private readonly transport: Transport;
  private readonly base: string;
  /** Request headers, built once (the config of an adapter never changes; undici does not modify them). */
  private readonly jsonHeaders: Record<string, string>;
  private readonly sseHeaders: Record<string, string>;

  constructor(readonly config: ProviderConfig) {
    this.transport = new Transport(config);
    this.base = config.base_url.replace(/\/+$/, '');
    this.jsonHeaders = this.headers();
    this.sseHeaders = { ...this.headers(), accept: 'text/event-stream' };
  }

  private headers(): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json', ...(this.config.headers ?? {}) };
    if (this.config.api_key) {
      if (this.config.type === 'azure_openai') h['api-key'] = this.config.api_key;
      else h.authorization = `Bearer ${this.config.api_key}`;
    }
    return h;
  }

  private chatUrl(model: string): string {
    if (this.config.type === 'azure_openai') {
      const deployment = this.config.deployments?.[model] ?? model;
      return `${this.base}/openai/deployments/${encodeURIComponent(deployment)}/chat/completions?api-version=${encodeURIComponent(this.apiVersion())}`;
    }
    return `${this.base}/chat/completions`;
  }

  private apiVersion(): string {
    return this.config.api_version ?? '2024-10-21';
  }

  async complete(req: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const body = { ...req, stream: false };
    delete (body as Partial<ChatRequest>).stream_options;
    const out = await this.transport.json<ChatCompletion>({
      method: 'POST',
      url: this.chatUrl(req.model),
      headers: this.jsonHeaders,
      body: JSON.stringify(body),
      signal,
      streaming: false,
    });
    if (!out || typeof out !== 'object' || !Array.isArray(out.choices)) {
      throw upstreamBadResponse(this.config.name, 'no choices in the completion');
    }
    return out;
  }

  async stream(req: ChatRequest, signal: AbortSignal): Promise<AsyncIterable<ChatCompletionChunk>> {
    // Ask for usage (spend accounting needs it; the proxy strips it if the client didn't ask),
    // unless the provider is configured as one that rejects stream_options.
    const body: ChatRequest =
      this.config.stream_usage === false
        ? { ...req, stream: true }
        : { ...req, stream: true, stream_options: { ...(req.stream_options ?? {}), include_usage: true } };
    const res = await this.transport.open({
      method: 'POST',
      url: this.chatUrl(req.model),
      headers: this.sseHeaders,
      body: JSON.stringify(body),
      signal,
      streaming: true,
    });
    const type = String(res.headers['content-type'] ?? '');
    if (type.includes('application/json')) return this.fromJson(res);
    return this.chunks(res);
  }

  /** Some OpenAI-compatible servers ignore `stream: true` and answer JSON: replay it as chunks. */
  private async *fromJson(res: Awaited<ReturnType<Transport['open']>>): AsyncGenerator<ChatCompletionChunk> {
    let text: string;
    try {
      text = await this.transport.readBody(res);
    } catch (err) {
      throw res.fail(err);
    } finally {
      res.done();
    }
    let c: ChatCompletion;
    try {
      c = JSON.parse(text) as ChatCompletion;
    } catch {
      throw upstreamBadResponse(this.config.name, 'truncated or malformed JSON');
    }
    if (!c || !Array.isArray(c.choices)) throw upstreamBadResponse(this.config.name, 'no choices in the completion');
    const base = { id: c.id, object: 'chat.completion.chunk' as const, created: c.created, model: c.model, system_fingerprint: c.system_fingerprint ?? null };
    for (const ch of c.choices) {
      const m = ch.message ?? { role: 'assistant', content: null };
      yield { ...base, choices: [{ index: ch.index, delta: { role: 'assistant', content: m.content ?? '' }, finish_reason: null }] };
      // Every other field of the message (legacy function_call, refusal, annotations, audio,
      // fields OpenAI adds later) as one more delta: the output guard scans it like any other.
      const rest = Object.fromEntries(Object.entries(m).filter(([k, v]) => k !== 'role' && k !== 'content' && k !== 'tool_calls' && v !== null && v !== undefined));
      if (Object.keys(rest).length) yield { ...base, choices: [{ index: ch.index, delta: rest, finish_reason: null }] };
      if (m.tool_calls?.length) {
        yield {
          ...base,
          choices: [{ index: ch.index, delta: { tool_calls: m.tool_calls.map((t, i) => ({ index: i, id: t.id, type: 'function' as const, function: { ...t.function } })) }, finish_reason: null }],
        };
      }
      yield { ...base, choices: [{ index: ch.index, delta: {}, finish_reason: ch.finish_reason ?? 'stop' }] };
    }
    if (c.usage) yield { ...base, choices: [], usage: c.usage };
  }

  private async *chunks(res: Awaited<ReturnType<Transport['open']>>): AsyncGenerator<ChatCompletionChunk> {
    const name = this.config.name;
    let finished = false;
    for await (const ev of this.transport.sse(res)) {
      if (ev.data === '[DONE]') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(ev.data);
      } catch {
        throw upstreamBadResponse(name, 'a stream event is not valid JSON');
      }
      const obj = parsed as { error?: { message?: string }; choices?: unknown };
      if (obj && typeof obj === 'object' && obj.error) {
        const msg = sanitiseUpstreamMessage(String(obj.error.message ?? 'error'), [this.config.api_key]);
        throw new UpstreamError(name, 'bad_response', 502, 'upstream_error', `Provider "${name}" failed mid-stream: ${msg}`, { code: 'upstream_failed', providerText: msg });
      }
      if (!obj || typeof obj !== 'object' || !Array.isArray(obj.choices)) {
        throw upstreamBadResponse(name, 'a stream event is not a chat.completion.chunk');
      }
      const chunk = parsed as ChatCompletionChunk;
      if (chunk.choices.some((c) => c.finish_reason)) finished = true;
      yield chunk;
    }
    // No [DONE]: acceptable only if every choice already finished (some servers omit it).
    if (!finished) throw upstreamBadResponse(name, 'the stream ended before the completion finished');
  }

  async probe(signal: AbortSignal): Promise<ProbeResult> {
    const started = performance.now();
    const url = this.config.type === 'azure_openai'
      ? `${this.base}/openai/models?api-version=${encodeURIComponent(this.apiVersion())}`
      : `${this.base}/models`;
    const out = await this.transport.json<{ data?: { id?: unknown }[] }>({ method: 'GET', url, headers: this.jsonHeaders, signal, streaming: false });
    const models = Array.isArray(out?.data) ? out.data.map((m) => String(m?.id ?? '')).filter(Boolean) : [];
    return { latency_ms: Math.round(performance.now() - started), models };
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
