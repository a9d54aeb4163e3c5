import { globToRegExp } from './config.js';
import type { ProviderConfig } from './types.js';

/** A model some configured provider serves, by its literal name. */
export interface ListedModel {
  id: string;
  /** The provider's name in warden.yaml. */
  owned_by: string;
}

/**
 * The models the providers serve, each once, owned by the provider tried first for it (lowest
 * priority number, then config order): the literal names of `providers[].models`, and for a glob
 * (`gpt-4*`, `*`) the names the provider itself listed at its last health check (`upstream`, by
 * provider name) that the glob matches. A glob with no listing yet names no model.
 */
export function listedModels(providers: readonly ProviderConfig[], upstream: ReadonlyMap<string, readonly string[]> = new Map()): ListedModel[] {
  const ordered = providers.map((p, i) => ({ p, i })).sort((a, b) => a.p.priority - b.p.priority || a.i - b.i);
  const seen = new Map<string, ListedModel>();
  for (const { p } of ordered) {
    for (const id of p.models) {
      if (!/[*?]/.test(id)) {
        if (!seen.has(id)) seen.set(id, { id, owned_by: p.name });
        continue;
      }
      const re = globToRegExp(id);
      for (const listed of upstream.get(p.name) ?? []) if (re.test(listed) && !seen.has(listed)) seen.set(listed, { id: listed, owned_by: p.name });
    }
  }
  return [...seen.values()];
}
