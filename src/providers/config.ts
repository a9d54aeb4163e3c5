import { PROVIDER_TYPES, type ProviderConfig, type ProviderType } from './types.js';

/** A provider entry as it comes from warden.yaml: only name, type and base_url are required. */
export type ProviderInput = Partial<ProviderConfig> & { name: string; type: ProviderType; base_url: string };

export const PROVIDER_DEFAULTS = {
  models: ['*'],
  priority: 100,
  timeout_ms: 60_000,
  stream_idle_timeout_ms: 30_000,
  max_retries: 1,
  retry_backoff_ms: 100,
  max_response_bytes: 8 * 1024 * 1024,
  breaker_failures: 5,
  breaker_cooldown_ms: 30_000,
} as const;

/** Fills the defaults and rejects what the proxy could never use, naming the provider and key. */
export function normaliseProvider(raw: ProviderInput): ProviderConfig {
  if (!raw.name) throw new Error('providers[].name is required');
  if (!PROVIDER_TYPES.includes(raw.type)) {
    throw new Error(`providers[${raw.name}].type must be one of ${PROVIDER_TYPES.join(', ')}; got ${JSON.stringify(raw.type)}`);
  }
  if (!/^https?:\/\//.test(raw.base_url ?? '')) {
    throw new Error(`providers[${raw.name}].base_url must be an http(s) URL; got ${JSON.stringify(raw.base_url)}`);
  }
  const out: ProviderConfig = {
    ...PROVIDER_DEFAULTS,
    ...Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)),
    models: raw.models?.length ? [...raw.models] : [...PROVIDER_DEFAULTS.models],
  } as ProviderConfig;
  for (const key of ['timeout_ms', 'stream_idle_timeout_ms', 'max_response_bytes', 'breaker_failures', 'breaker_cooldown_ms'] as const) {
    if (!Number.isFinite(out[key]) || out[key] <= 0) throw new Error(`providers[${raw.name}].${key} must be a positive number; got ${out[key]}`);
  }
  return out;
}

const globCache = new Map<string, RegExp>();

/** `gpt-4*` style globs: `*` any run of characters, `?` one character; everything else literal. */
export function globToRegExp(glob: string): RegExp {
  let re = globCache.get(glob);
  if (!re) {
    const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
    re = new RegExp(`^${body}$`, 'i');
    globCache.set(glob, re);
  }
  return re;
}

export function modelMatches(patterns: readonly string[], model: string): boolean {
  return patterns.some((p) => globToRegExp(p).test(model));
}
