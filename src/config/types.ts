import type { Severity } from '../scanning/types.js';

export type PolicyAction = 'block' | 'flag' | 'redact' | 'allow';

/** One target's rules in a policy, as written in warden.yaml. */
export interface PolicyTargetSpec {
  block_severity?: Severity;
  fail_mode?: 'closed' | 'open';
  detectors?: string[];
  thresholds?: Record<string, number>;
  actions?: Record<string, PolicyAction>;
}

/** A policy as written in warden.yaml: rules for every target, then per target. */
export interface PolicySpec extends PolicyTargetSpec {
  extends?: string;
  description?: string;
  prompt?: PolicyTargetSpec;
  rag?: PolicyTargetSpec;
  output?: PolicyTargetSpec;
}

/** security.outcome: the chat proxy's outcome guards (defaults in src/proxy/outcome/settings.ts). */
export interface OutcomeConfig {
  leakage?: { enabled?: boolean; min_shingles?: number; min_fraction?: number; max_shingles?: number; min_chars?: number; char_fraction?: number; max_chars?: number; translated?: boolean; min_rare_tokens?: number; rare_fraction?: number };
  protected_values?: { enabled?: boolean; min_length?: number; values?: string[]; by_caller?: Record<string, string[]> };
  tool_hijack?: { enabled?: boolean; unknown_is_sink?: boolean; trusted_destinations?: string[] };
  markdown_exfil?: { enabled?: boolean };
  input_check?: { enabled?: boolean };
  /** Tool name → what it does (send, pay, post, fetch, delete, run: sinks; read: not). */
  tools?: Record<string, 'send' | 'pay' | 'post' | 'fetch' | 'delete' | 'run' | 'read'>;
}

export type Role = 'admin' | 'analyst' | 'service';
export const ROLES: readonly Role[] = ['admin', 'analyst', 'service'];

export interface ProviderConfig {
  name: string;
  type: 'openai' | 'azure_openai' | 'anthropic';
  base_url: string;
  api_key?: string;
  api_version?: string;
  deployments?: Record<string, string>;
  models: string[];
  priority: number;
  timeout_ms: number;
  max_retries: number;
  headers?: Record<string, string>;
  stream_idle_timeout_ms: number;
  retry_backoff_ms: number;
  max_response_bytes: number;
  breaker_failures: number;
  breaker_cooldown_ms: number;
  anthropic_version?: string;
  default_max_tokens?: number;
  stream_usage: boolean;
}

export interface SpendThreshold {
  scope: 'global' | 'key' | 'provider';
  scope_id?: string;
  period: 'day' | 'month';
  usd: number;
}

/** warden.yaml after defaults, environment overrides and `env:` secrets are applied. */
export interface WardenConfig {
  server: {
    host: string;
    port: number;
    trust_proxy: boolean;
    secure_cookies: boolean;
    shutdown_timeout_ms: number;
    headers_timeout_ms: number;
    request_timeout_ms: number;
    max_pending_connections_per_ip: number;
    instance_id?: string;
  };
  auth: {
    jwt: {
      algorithm: 'HS256' | 'RS256';
      secret?: string;
      public_key?: string;
      private_key?: string;
      jwks_url?: string;
      issuer: string;
      audience: string;
      ttl_seconds: number;
      clock_tolerance_seconds: number;
    };
    users: { username: string; password_hash: string; role: Role }[];
    bootstrap_key?: string;
    login: { max_attempts: number; window_seconds: number };
  };
  security: {
    rate_limit: number;
    rate_limit_fail_mode: 'open' | 'closed';
    mode: 'enforce' | 'monitor';
    block_severity: Severity;
    fail_mode: 'closed' | 'open';
    scan_timeout_ms: number;
    block_response: 'error' | 'refusal';
    stream_mode: 'buffer' | 'incremental';
    stream_chunk_chars: number;
    stream_overlap_chars: number;
    canary: boolean;
    input: { scan_system_turns: boolean; undecodable_content: 'block' | 'flag' };
    output: { link_allowlist: string[] };
    /** The chat proxy's outcome guards (src/proxy/outcome/settings.ts). */
    outcome?: OutcomeConfig;
  };
  /** Named policies (docs/policies.md); `default` is built in. */
  policies: Record<string, PolicySpec>;
  policy_routing: { routes: Record<string, string>; models: Record<string, string>; jwt_claim: string };
  limits: { max_body_bytes: number; batch_max_items: number; max_json_depth: number };
  redis: { url?: string; key_prefix: string };
  storage: { backend?: 'memory' | 'sqlite' | 'redis'; sqlite_path: string; store_input: 'excerpt' | 'full' | 'none'; excerpt_chars: number; max_scans: number; retention_days: number };
  scanning: {
    workers: number;
    inline_max_chars?: number;
    rules_dir?: string;
    rules_paths: string[];
    watch_rules: boolean;
    enabled_plugins?: string[];
    plugin_dirs: string[];
    plugins: Record<string, Record<string, unknown>>;
  };
  events: { transport: 'memory' | 'kafka'; replay_retention: number };
  kafka: {
    brokers: string[];
    client_id: string;
    topic_prefix: string;
    buffer_size: number;
    max_wait_ms: number;
    start_timeout_ms: number;
    ssl: boolean;
    sasl?: { mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512'; username: string; password: string };
  };
  ws: { max_connections: number; max_buffered_bytes: number; heartbeat_ms: number; max_message_bytes: number };
  jobs: {
    queue: 'auto' | 'kafka' | 'embedded';
    chunk_size: number;
    chunk_max_bytes: number;
    max_documents: number;
    max_bytes: number;
    files_dir?: string;
    concurrency: number;
    session_timeout_ms: number;
    progress_interval_ms: number;
    ttl_hours: number;
  };
  providers: ProviderConfig[];
  pricing: Record<string, { input: number; output: number }>;
  spend: { thresholds: SpendThreshold[] };
  health_checks: { interval_ms: number; timeout_ms: number; degraded_latency_ms: number };
}
