import type { ApiKeyRecord } from '../auth/api-keys.js';
import type { PolicyConfig } from './resolve.js';
import { PolicyBook } from './resolve.js';
import { BUILTIN_POLICY } from './validate.js';

/** The routes a pin may name, in the order the settings page lists them. */
export const POLICY_ROUTES = ['/v1/chat/completions', '/v1/scan', '/v1/scan/batch', '/v1/rag/scan'] as const;

/**
 * What GET /v1/policies and the dashboard show: every policy as resolved (with its version and
 * parent), the keys that name each, the policy each route gets for a caller whose credential
 * names none, and the model pins.
 */
export function policyOverview(config: PolicyConfig & { overrides?: boolean }, keys: ApiKeyRecord[], book = new PolicyBook(config)) {
  const specs = config.policies ?? {};
  const live = keys.filter((k) => !k.revoked_at);
  return {
    policies: book.names().map((name) => ({
      ...book.describe(name)!,
      extends: name === BUILTIN_POLICY ? null : (specs[name]?.extends ?? BUILTIN_POLICY),
      description: specs[name]?.description ?? (name === BUILTIN_POLICY ? 'Built in: security.* for every target; PII in prompts and retrieved data is flagged, not blocked.' : null),
      defined_in: name in specs ? (config.overrides ? 'settings' : 'warden.yaml') : 'built-in',
      keys: live.filter((k) => k.policy === name).map((k) => ({ id: k.id, name: k.name })),
    })),
    routes: POLICY_ROUTES.map((route) => {
      const chosen = book.choose({ route });
      return { route, policy: chosen.policy.name, version: chosen.policy.version, source: chosen.source };
    }),
    models: config.policy_routing?.models ?? {},
    jwt_claim: config.policy_routing?.jwt_claim ?? 'warden_policy',
  };
}
