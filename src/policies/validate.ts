import type { ApiKeyRecord } from '../auth/api-keys.js';
import type { PolicySpec, PolicyTargetSpec, WardenConfig } from '../config/types.js';
import { ATTACK_TYPES } from '../scanning/types.js';

/**
 * What the JSON Schema cannot check about `policies` and `policy_routing`: each problem names
 * the key, the value and what was expected (the config loader and PUT /v1/settings report them).
 */

/** Findings with spans that can be replaced by a placeholder: personal data and secrets. */
export const REDACTABLE_ATTACK_TYPES: ReadonlySet<string> = new Set(['pii_exposure', 'secret_exposure']);
export const REDACTABLE_DETECTORS: ReadonlySet<string> = new Set(['pii', 'secrets']);
export const BUILTIN_POLICY = 'default';

/** Whether `redact` can apply to an actions key (an attack type, a detector or a rule id). */
export function redactable(key: string): boolean {
  if (REDACTABLE_ATTACK_TYPES.has(key) || REDACTABLE_DETECTORS.has(key)) return true;
  const dot = key.indexOf('.');
  return dot > 0 && REDACTABLE_DETECTORS.has(key.slice(0, dot));
}

function targetProblems(where: string, t: PolicyTargetSpec | undefined, target: string | null, out: string[]): void {
  for (const [key, action] of Object.entries(t?.actions ?? {})) {
    if (action !== 'redact') continue;
    if (target === 'output') {
      out.push(`${where}.actions.${key} = "redact": the output target does not support redact (the answer is scanned after the model wrote it); expected block, flag or allow`);
    } else if (!redactable(key)) {
      out.push(
        `${where}.actions.${key} = "redact": findings of ${key} have no spans to replace; expected redact only on ${[...REDACTABLE_ATTACK_TYPES, ...REDACTABLE_DETECTORS].join(', ')} or their rule ids (pii.email, secrets.aws-access-key, ...)`,
      );
    }
  }
  for (const key of Object.keys(t?.actions ?? {})) {
    if (key.includes('_') && !key.includes('.') && !ATTACK_TYPES.includes(key as never) && /_(exposure|injection|extraction)$/.test(key)) {
      out.push(`${where}.actions.${key}: unknown attack type "${key}"; expected one of ${ATTACK_TYPES.join(', ')}, a detector name or a rule id`);
    }
  }
}

/** The parent a policy extends: its `extends`, else `default`; null for `default` (the built-in is its base). */
export function parentOf(name: string, policies: Record<string, PolicySpec>): string | null {
  if (name === BUILTIN_POLICY) return null;
  return policies[name]?.extends ?? BUILTIN_POLICY;
}

/** A problem when a parent of `name` is missing or the chain of parents loops. */
function chainProblems(name: string, policies: Record<string, PolicySpec>, out: string[]): void {
  const seen: string[] = [name];
  for (let child = name, parent = parentOf(name, policies); parent !== null; child = parent, parent = parentOf(parent, policies)) {
    if (seen.includes(parent)) {
      out.push(`policies.${name}.extends: circular: ${[...seen, parent].join(' -> ')}; expected a chain of parents that ends at default`);
      return;
    }
    if (!(parent in policies) && parent !== BUILTIN_POLICY) {
      out.push(`policies.${child}.extends = "${parent}": no such policy; expected one of ${[BUILTIN_POLICY, ...Object.keys(policies).filter((n) => n !== BUILTIN_POLICY)].join(', ')}`);
      return;
    }
    seen.push(parent);
  }
}

export function policyProblems(config: Pick<WardenConfig, 'policies' | 'policy_routing'>): string[] {
  const out: string[] = [];
  const policies = config.policies ?? {};
  const names = new Set([BUILTIN_POLICY, ...Object.keys(policies)]);
  for (const [name, spec] of Object.entries(policies)) {
    if (name === BUILTIN_POLICY && spec.extends !== undefined) out.push(`policies.default.extends = "${spec.extends}": the default policy extends the built-in one only; expected no extends`);
    else chainProblems(name, policies, out);
    targetProblems(`policies.${name}`, spec, null, out);
    for (const target of ['prompt', 'rag', 'output'] as const) targetProblems(`policies.${name}.${target}`, spec[target], target, out);
    // A policy-wide redact applies to output too, where it cannot.
    for (const [key, action] of Object.entries(spec.actions ?? {})) {
      if (action === 'redact' && redactable(key) && spec.output?.actions?.[key] === undefined) {
        out.push(`policies.${name}.actions.${key} = "redact": a policy-wide action applies to output too, which does not support redact; expected it under prompt/rag, or output.actions.${key} set to block, flag or allow`);
      }
    }
  }
  const routing = config.policy_routing;
  for (const [kind, pins] of [['routes', routing?.routes ?? {}], ['models', routing?.models ?? {}]] as const) {
    for (const [k, v] of Object.entries(pins)) {
      if (!names.has(v)) out.push(`policy_routing.${kind}.${k} = "${v}": no such policy; expected one of ${[...names].join(', ')}`);
    }
  }
  return [...new Set(out)];
}

/**
 * API keys (not revoked) that name a policy `policies` would no longer define, as one problem
 * naming each key, its policy and what was expected; null when every key's policy stays defined.
 * `change` says what would remove it ("this change", "the reloaded file"). PUT /v1/settings and a
 * file reload refuse such a change and keep the running policies.
 */
export function orphanedKeysProblem(keys: readonly Pick<ApiKeyRecord, 'id' | 'policy' | 'revoked_at'>[], policies: Record<string, unknown> | undefined, change: string): string | null {
  const names = [BUILTIN_POLICY, ...Object.keys(policies ?? {}).filter((n) => n !== BUILTIN_POLICY)];
  const orphans = keys.filter((k) => !k.revoked_at && k.policy && !names.includes(k.policy));
  if (!orphans.length) return null;
  return (
    `policies: API key ${orphans.map((k) => `${k.id} (policy "${k.policy}")`).join(', ')} names a policy ${change} removes; ` +
    `expected every key's policy to stay defined, one of ${names.join(', ')} (change the key's policy first)`
  );
}

/** A policy name a key or claim may carry: one the configuration defines, or `default`. */
export function unknownPolicyProblem(key: string, name: string, config: Partial<Pick<WardenConfig, 'policies'>>): string | null {
  const names = [BUILTIN_POLICY, ...Object.keys(config.policies ?? {}).filter((n) => n !== BUILTIN_POLICY)];
  return names.includes(name) ? null : `${key} = "${name}": no such policy; expected one of ${names.join(', ')}`;
}
