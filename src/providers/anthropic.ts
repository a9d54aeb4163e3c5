import { WardenError } from '../errors.js';
import { dataText, parseDataUrl } from '../scan-service/chat-fields.js';
import { UpstreamError, sanitiseUpstreamMessage, upstreamBadResponse } from './errors.js';
import { Transport } from './transport.js';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatMessage,
  ChatRequest,
  ContentPart,
  FinishReason,
  ProbeResult,
  ProviderAdapter,
  ProviderConfig,
  ToolCall,
  Usage,
} from './types.js';

/**
 * Anthropic's Messages API behind OpenAI's chat-completions shape, both ways: system turns
 * become the top-level `system`, tool calls become `tool_use` blocks and tool results
 * `tool_result` blocks, and Anthropic's stream events become chat.completion.chunk objects.
 */

type Block =
  | { type: 'text'; text: string }
  | { type: 'image'; source: { type: 'base64'; media_type: string; data: string } | { type: 'url'; url: string } }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

interface AnthropicResponse {
  id: string;
  model: string;
  content: { type: string; text?: string; id?: string; name?: string; input?: unknown }[];
  stop_reason: string | null;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
}

/** What the stream translation reads from an Anthropic stream event; all optional (the upstream is not trusted). */
interface AnthropicStreamEvent {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicResponse['usage'] };
  content_block?: { type?: string; id?: string; name?: string; text?: string };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicResponse['usage'];
  error?: { message?: string };
}

const STOP_REASONS: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function mapStopReason(reason: string | null | undefined): FinishReason {
  if (!reason) return null;
  return STOP_REASONS[reason] ?? 'stop';
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}

function partsToBlocks(content: ChatMessage['content']): Block[] {
  if (typeof content === 'string') return content.length ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  const blocks: Block[] = [];
  for (const part of content as ContentPart[]) {
    if (part.type === 'text' && typeof part.text === 'string') blocks.push({ type: 'text', text: part.text });
    else if (part.type === 'image_url' && part.image_url?.url) {
      // data: URLs are read as the field map reads them when it scans: an image is sent as an
      // image; one that carries text is sent as exactly the text that was scanned.
      const url = part.image_url.url;
      const d = parseDataUrl(url);
      if (!d) blocks.push({ type: 'image', source: { type: 'url', url } });
      else if (d.base64 && d.mediaType.startsWith('image/')) blocks.push({ type: 'image', source: { type: 'base64', media_type: d.mediaType, data: d.data } });
      else {
        const text = dataText(url);
        if (text === null) {
          throw new WardenError(400, 'invalid_request_error', `A data: URL of type "${d.mediaType}" that is not text is not supported by Anthropic providers.`, {
            code: 'unsupported_content',
            param: 'messages',
          });
        }
        blocks.push({ type: 'text', text });
      }
    } else {
      throw new WardenError(400, 'invalid_request_error', `Content part type "${part.type}" is not supported by Anthropic providers.`, {
        code: 'unsupported_content',
        param: 'messages',
      });
    }
  }
  return blocks;
}

function parseArguments(args: string): unknown {
  if (!args) return {};
  try {
    return JSON.parse(args);
  } catch {
    throw new WardenError(400, 'invalid_request_error', 'Tool call arguments must be valid JSON for Anthropic providers.', {
      code: 'invalid_tool_arguments',
      param: 'messages',
    });
  }
}

/** OpenAI request -> Anthropic Messages request body. Exported for the tests. */
export function toAnthropicRequest(req: ChatRequest, defaultMaxTokens: number): Record<string, unknown> {
  if ((req.n ?? 1) > 1) {
    throw new WardenError(400, 'invalid_request_error', 'n > 1 is not supported by Anthropic providers.', { code: 'unsupported_parameter', param: 'n' });
  }
  const system: string[] = [];
  const messages: AnthropicMessage[] = [];
  // Anthropic wants strictly alternating roles: consecutive turns of one role are merged.
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const m of req.messages) {
    switch (m.role) {
      case 'system':
      case 'developer':
        system.push(textOf(m.content));
        break;
      case 'user':
        push('user', partsToBlocks(m.content));
        break;
      case 'assistant': {
        const blocks = partsToBlocks(m.content);
        for (const tc of m.tool_calls ?? []) {
          blocks.push({ type: 'tool_use', id: tc.id, name: tc.function.name, input: parseArguments(tc.function.arguments) });
        }
        push('assistant', blocks);
        break;
      }
      case 'tool':
      case 'function':
        push('user', [{ type: 'tool_result', tool_use_id: String(m.tool_call_id ?? m.name ?? ''), content: textOf(m.content) }]);
        break;
    }
  }
  const out: Record<string, unknown> = {
    model: req.model,
    messages,
    max_tokens: req.max_completion_tokens ?? req.max_tokens ?? defaultMaxTokens,
  };
  if (system.length) out.system = system.join('\n\n');
  if (req.temperature != null) out.temperature = Math.min(1, req.temperature);
  if (req.top_p != null) out.top_p = req.top_p;
  if (req.stop != null) out.stop_sequences = Array.isArray(req.stop) ? req.stop : [req.stop];
  if (req.tools?.length) {
    out.tools = req.tools.map((t) => ({
      name: t.function.name,
      ...(t.function.description ? { description: t.function.description } : {}),
      input_schema: t.function.parameters ?? { type: 'object', properties: {} },
    }));
  }
  if (req.tool_choice) {
    const tc = req.tool_choice;
    if (tc === 'auto') out.tool_choice = { type: 'auto' };
    else if (tc === 'required') out.tool_choice = { type: 'any' };
    else if (tc === 'none') out.tool_choice = { type: 'none' };
    else if (typeof tc === 'object') out.tool_choice = { type: 'tool', name: tc.function.name };
  }
  if (req.user) out.metadata = { user_id: req.user };
  return out;
}

function usageOf(u: AnthropicResponse['usage'] | undefined): Usage {
  const prompt = (u?.input_tokens ?? 0) + (u?.cache_read_input_tokens ?? 0) + (u?.cache_creation_input_tokens ?? 0);
  const completion = u?.output_tokens ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

/** Anthropic Messages response -> OpenAI chat.completion. Exported for the tests. */
export function fromAnthropicResponse(res: AnthropicResponse, created = Math.floor(Date.now() / 1000)): ChatCompletion {
  let text = '';
  const toolCalls: ToolCall[] = [];
  for (const block of res.content ?? []) {
    if (block.type === 'text') text += block.text ?? '';
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: String(block.id), type: 'function', function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) } });
    }
  }
  return {
    id: `chatcmpl-${res.id}`,
    object: 'chat.completion',
    created,
    model: res.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: text.length || toolCalls.length === 0 ? text : null, ...(toolCalls.length ? { tool_calls: toolCalls } : {}), refusal: null },
        finish_reason: mapStopReason(res.stop_reason),
        logprobs: null,
      },
    ],
    usage: usageOf(res.usage),
  };
}

export class AnthropicAdapter implements ProviderAdapter {
  private readonly transport: Transport;
  private readonly base: string;

  constructor(readonly config: ProviderConfig) {
    this.transport = new Transport(config);
    // Accept both https://api.anthropic.com and https://api.anthropic.com/v1.
    this.base = config.base_url.replace(/\/+$/, '').replace(/\/v1$/, '');
  }

  private headers(): Record<string, string> {
    return {
      'content-type': 'application/json',
      accept: 'application/json',
      'anthropic-version': this.config.anthropic_version ?? '2023-06-01',
      ...(this.config.headers ?? {}),
      ...(this.config.api_key ? { 'x-api-key': this.config.api_key } : {}),
    };
  }

  async complete(req: ChatRequest, signal: AbortSignal): Promise<ChatCompletion> {
    const body = toAnthropicRequest(req, this.config.default_max_tokens ?? 4096);
    const res = await this.transport.json<AnthropicResponse>({
      method: 'POST',
      url: `${this.base}/v1/messages`,
      headers: this.headers(),
      body: JSON.stringify(body),
      signal,
      streaming: false,
    });
    if (!res || typeof res !== 'object' || !Array.isArray(res.content)) throw upstreamBadResponse(this.config.name, 'no content in the message');
    return fromAnthropicResponse(res);
  }

  async stream(req: ChatRequest, signal: AbortSignal): Promise<AsyncIterable<ChatCompletionChunk>> {
    const body = { ...toAnthropicRequest(req, this.config.default_max_tokens ?? 4096), stream: true };
    const res = await this.transport.open({
      method: 'POST',
      url: `${this.base}/v1/messages`,
      headers: { ...this.headers(), accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
      streaming: true,
    });
    return this.chunks(res);
  }

  /** Anthropic stream events -> OpenAI chunks; the usage chunk comes last, as OpenAI sends it. */
  private async *chunks(res: Awaited<ReturnType<Transport['open']>>): AsyncGenerator<ChatCompletionChunk> {
    const name = this.config.name;
    const created = Math.floor(Date.now() / 1000);
    let id = 'chatcmpl-anthropic';
    let model = '';
    let inputTokens = 0;
    let outputTokens = 0;
    let stopped = false;
    // Anthropic numbers content blocks; OpenAI numbers tool calls. Map one to the other.
    const toolIndexByBlock = new Map<number, number>();
    const chunk = (delta: ChatCompletionChunk['choices'][number]['delta'], finish: FinishReason = null): ChatCompletionChunk => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });
    for await (const ev of this.transport.sse(res)) {
      let data: AnthropicStreamEvent;
      try {
        data = JSON.parse(ev.data) as AnthropicStreamEvent;
      } catch {
        throw upstreamBadResponse(name, 'a stream event is not valid JSON');
      }
      const type = String(data?.type ?? ev.event ?? '');
      switch (type) {
        case 'message_start': {
          const msg = data.message ?? {};
          id = `chatcmpl-${msg.id ?? 'anthropic'}`;
          model = String(msg.model ?? '');
          inputTokens = (msg.usage?.input_tokens ?? 0) + (msg.usage?.cache_read_input_tokens ?? 0) + (msg.usage?.cache_creation_input_tokens ?? 0);
          outputTokens = msg.usage?.output_tokens ?? 0;
          yield chunk({ role: 'assistant', content: '' });
          break;
        }
        case 'content_block_start': {
          const block = data.content_block ?? {};
          if (block.type === 'tool_use') {
            const index = toolIndexByBlock.size;
            toolIndexByBlock.set(Number(data.index), index);
            yield chunk({ tool_calls: [{ index, id: String(block.id), type: 'function', function: { name: String(block.name), arguments: '' } }] });
          } else if (block.type === 'text' && block.text) {
            yield chunk({ content: String(block.text) });
          }
          break;
        }
        case 'content_block_delta': {
          const d = data.delta ?? {};
          if (d.type === 'text_delta') yield chunk({ content: String(d.text ?? '') });
          else if (d.type === 'input_json_delta') {
            const index = toolIndexByBlock.get(Number(data.index));
            if (index === undefined) throw upstreamBadResponse(name, 'tool input for an unknown content block');
            yield chunk({ tool_calls: [{ index, function: { arguments: String(d.partial_json ?? '') } }] });
          }
          break;
        }
        case 'message_delta': {
          if (data.usage?.output_tokens != null) outputTokens = data.usage.output_tokens;
          if (data.usage?.input_tokens != null) inputTokens = data.usage.input_tokens;
          if (data.delta?.stop_reason) {
            stopped = true;
            yield chunk({}, mapStopReason(data.delta.stop_reason));
          }
          break;
        }
        case 'message_stop': {
          if (!stopped) yield chunk({}, 'stop');
          const usage: Usage = { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
          yield { id, object: 'chat.completion.chunk', created, model, choices: [], usage };
          return;
        }
        case 'error': {
          const msg = sanitiseUpstreamMessage(String(data.error?.message ?? 'error'), [this.config.api_key]);
          throw new UpstreamError(name, 'bad_response', 502, 'upstream_error', `Provider "${name}" failed mid-stream: ${msg}`, { code: 'upstream_failed', providerText: msg });
        }
        default:
          break; // ping, content_block_stop and future event types carry nothing we need
      }
    }
    throw upstreamBadResponse(name, 'the stream ended before message_stop');
  }

  async probe(signal: AbortSignal): Promise<ProbeResult> {
    const started = performance.now();
    const out = await this.transport.json<{ data?: { id?: unknown }[] }>({
      method: 'GET',
      url: `${this.base}/v1/models`,
      headers: this.headers(),
      signal,
      streaming: false,
    });
    const models = Array.isArray(out?.data) ? out.data.map((m) => String(m?.id ?? '')).filter(Boolean) : [];
    return { latency_ms: Math.round(performance.now() - started), models };
  }

  async close(): Promise<void> {
    await this.transport.close();
  }
}
