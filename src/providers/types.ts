/**
 * OpenAI chat-completions shapes as Warden sees them, and the seam every upstream adapter
 * implements. Adapters speak their provider's dialect on the wire and OpenAI's to Warden, so
 * the proxy, the output scanner and spend accounting only ever handle one format.
 */

export type ProviderType = 'openai' | 'azure_openai' | 'anthropic';
export const PROVIDER_TYPES: readonly ProviderType[] = ['openai', 'azure_openai', 'anthropic'];

export interface ProviderConfig {
  name: string;
  type: ProviderType;
  /** e.g. https://api.openai.com/v1, http://127.0.0.1:11434/v1, https://x.openai.azure.com, https://api.anthropic.com */
  base_url: string;
  /** Already resolved from `env:NAME` by the config loader. */
  api_key?: string;
  /** Model names or globs (`gpt-4*`); `*` serves every model. */
  models: string[];
  /** Lower number is tried first. */
  priority: number;
  /** Time to the response headers, and for non-streamed calls to the whole body. */
  timeout_ms: number;
  /** Longest silence allowed between two bytes of a streamed response. */
  stream_idle_timeout_ms: number;
  /** Retries on the same provider before failing over (connection errors, 5xx, time-outs). */
  max_retries: number;
  retry_backoff_ms: number;
  /** Bound on an upstream response body (bytes); a bigger one is cut off with a 502. */
  max_response_bytes: number;
  /** Azure: `api-version` query parameter. */
  api_version?: string;
  /** Azure: model name -> deployment name (default: the model name itself). */
  deployments?: Record<string, string>;
  /** Anthropic: `anthropic-version` header, and max_tokens when the client sends none. */
  anthropic_version?: string;
  default_max_tokens?: number;
  /** OpenAI-compatible: ask for `stream_options.include_usage` when streaming (default true;
   * false for servers that reject the option – streamed spend is then not counted). */
  stream_usage?: boolean;
  /** Extra static headers for the upstream (e.g. OpenAI-Organization). */
  headers?: Record<string, string>;
  /** Circuit breaker: consecutive failures that open it, and how long it stays open. */
  breaker_failures: number;
  breaker_cooldown_ms: number;
}

export type Role = 'system' | 'developer' | 'user' | 'assistant' | 'tool' | 'function';

export interface ContentPart {
  type: string;
  text?: string;
  image_url?: { url: string; detail?: string };
  [k: string]: unknown;
}

export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: Role;
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  refusal?: string | null;
  [k: string]: unknown;
}

export interface ToolDef {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  stream_options?: { include_usage?: boolean } | null;
  n?: number | null;
  tools?: ToolDef[];
  tool_choice?: 'none' | 'auto' | 'required' | { type: 'function'; function: { name: string } };
  response_format?: { type: 'text' | 'json_object' | 'json_schema'; json_schema?: Record<string, unknown> };
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  temperature?: number | null;
  top_p?: number | null;
  stop?: string | string[] | null;
  user?: string;
  [k: string]: unknown;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [k: string]: unknown;
}

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call' | null;

export interface ChatChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; refusal?: string | null; [k: string]: unknown };
  finish_reason: FinishReason;
  logprobs?: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatChoice[];
  usage?: Usage;
  system_fingerprint?: string | null;
  [k: string]: unknown;
}

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChunkChoice {
  index: number;
  delta: { role?: 'assistant'; content?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[]; [k: string]: unknown };
  finish_reason: FinishReason;
  logprobs?: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: ChunkChoice[];
  usage?: Usage | null;
  system_fingerprint?: string | null;
  [k: string]: unknown;
}

export interface ProbeResult {
  latency_ms: number;
  models: string[];
}

/** One upstream dialect. Every method throws UpstreamError (src/providers/errors.ts) on failure. */
export interface ProviderAdapter {
  readonly config: ProviderConfig;
  complete(req: ChatRequest, signal: AbortSignal): Promise<ChatCompletion>;
  /** Resolves once the upstream answered 2xx; the iterable yields OpenAI chunks. */
  stream(req: ChatRequest, signal: AbortSignal): Promise<AsyncIterable<ChatCompletionChunk>>;
  /** A cheap, unpaid call (model listing) used by the health checker. */
  probe(signal: AbortSignal): Promise<ProbeResult>;
  /** Closes the keep-alive pool. */
  close(): Promise<void>;
}
