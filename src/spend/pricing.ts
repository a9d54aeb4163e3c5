import { globToRegExp } from '../providers/config.js';
import type { Usage } from '../providers/types.js';

export interface Price {
  /** USD per 1M input (prompt) tokens. */
  input: number;
  /** USD per 1M output (completion) tokens. */
  output: number;
}

/**
 * List prices (USD per 1M tokens) of common models, as published by the vendors in 2025.
 * `pricing` in warden.yaml overrides or extends them; a model matching nothing costs 0 and
 * is still counted in tokens.
 */
export const DEFAULT_PRICING: Record<string, Price> = {
  'gpt-4o*': { input: 2.5, output: 10 },
  'gpt-4o-mini*': { input: 0.15, output: 0.6 },
  'gpt-4.1*': { input: 2, output: 8 },
  'gpt-4.1-mini*': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano*': { input: 0.1, output: 0.4 },
  'gpt-4-turbo*': { input: 10, output: 30 },
  'gpt-4': { input: 30, output: 60 },
  'gpt-3.5-turbo*': { input: 0.5, output: 1.5 },
  'gpt-5*': { input: 1.25, output: 10 },
  'gpt-5-mini*': { input: 0.25, output: 2 },
  'gpt-5-nano*': { input: 0.05, output: 0.4 },
  'o1*': { input: 15, output: 60 },
  'o1-mini*': { input: 1.1, output: 4.4 },
  'o3*': { input: 2, output: 8 },
  'o3-mini*': { input: 1.1, output: 4.4 },
  'o4-mini*': { input: 1.1, output: 4.4 },
  'claude-3-5-haiku*': { input: 0.8, output: 4 },
  'claude-3-haiku*': { input: 0.25, output: 1.25 },
  'claude-haiku-4*': { input: 1, output: 5 },
  'claude-3-5-sonnet*': { input: 3, output: 15 },
  'claude-3-7-sonnet*': { input: 3, output: 15 },
  'claude-sonnet-4*': { input: 3, output: 15 },
  'claude-3-opus*': { input: 15, output: 75 },
  'claude-opus-4*': { input: 15, output: 75 },
};

interface Entry {
  pattern: string;
  re: RegExp;
  literal: number;
  price: Price;
}

/** Model -> price: an exact name wins, then the glob with the longest literal part. */
export class PriceTable {
  private readonly exact = new Map<string, Price>();
  private readonly globs: Entry[] = [];
  private readonly cache = new Map<string, Price | null>();

  constructor(overrides: Record<string, Price> = {}, defaults: Record<string, Price> = DEFAULT_PRICING) {
    const merged = { ...defaults, ...overrides };
    for (const [pattern, price] of Object.entries(merged)) {
      if (/[*?]/.test(pattern)) this.globs.push({ pattern, re: globToRegExp(pattern), literal: pattern.replace(/[*?]/g, '').length, price });
      else this.exact.set(pattern.toLowerCase(), price);
    }
    this.globs.sort((a, b) => b.literal - a.literal);
  }

  priceOf(model: string): Price | null {
    const key = model.toLowerCase();
    if (this.cache.has(key)) return this.cache.get(key)!;
    const price = this.exact.get(key) ?? this.globs.find((g) => g.re.test(model))?.price ?? null;
    if (this.cache.size < 10_000) this.cache.set(key, price);
    return price;
  }

  /** USD for one response's usage. */
  cost(model: string, usage: Pick<Usage, 'prompt_tokens' | 'completion_tokens'>): number {
    const p = this.priceOf(model);
    if (!p) return 0;
    return (usage.prompt_tokens * p.input + usage.completion_tokens * p.output) / 1_000_000;
  }
}
