import { hash } from 'node:crypto';
import { log } from '../log.js';
import type { PolicySpec, PolicyTargetSpec, WardenConfig } from '../config/types.js';
import { TARGETS, type Target } from '../scanning/types.js';
import type { CompiledPolicy, PolicyRequest, PolicySource, TargetRules } from './types.js';
import { BUILTIN_POLICY, parentOf, policyProblems } from './validate.js';

/** The configuration a policy book is built from (tests may pass less than a WardenConfig). */
export type PolicyConfig = {
  security: Pick<WardenConfig['security'], 'mode' | 'block_severity' | 'fail_mode'>;
  policies?: WardenConfig['policies'];
  policy_routing?: Partial<WardenConfig['policy_routing']>;
};

/** The built-in `default`: security.* for every target, PII in prompts and retrieved data flagged rather than blocked. */
function builtin(config: PolicyConfig): Record<Target, TargetRules> {
  const { mode, block_severity, fail_mode } = config.security;
  const base = { mode, block_severity, fail_mode, detectors: null, detectorList: null, thresholds: {} };
  return {
    prompt: { ...base, actions: { pii_exposure: 'flag' } },
    rag: { ...base, actions: { pii_exposure: 'flag' } },
    output: { ...base, actions: {} },
  };
}

function over(rules: TargetRules, spec: PolicyTargetSpec | undefined): TargetRules {
  if (!spec) return rules;
  return {
    mode: rules.mode,
    block_severity: spec.block_severity ?? rules.block_severity,
    fail_mode: spec.fail_mode ?? rules.fail_mode,
    detectors: spec.detectors ? new Set(spec.detectors) : rules.detectors,
    detectorList: spec.detectors ? [...new Set(spec.detectors)] : rules.detectorList,
    thresholds: spec.thresholds ? { ...rules.thresholds, ...spec.thresholds } : rules.thresholds,
    actions: spec.actions ? { ...rules.actions, ...spec.actions } : rules.actions,
  };
}

/** A policy's spec over its parent's rules: policy-wide keys first, then the target's own. */
function extend(parent: Record<Target, TargetRules>, spec: PolicySpec): Record<Target, TargetRules> {
  const out = {} as Record<Target, TargetRules>;
  for (const t of TARGETS) out[t] = over(over(parent[t], spec), spec[t]);
  return out;
}

function versionOf(name: string, targets: Record<Target, TargetRules>): string {
  const plain = TARGETS.map((t) => {
    const r = targets[t];
    return [t, r.mode, r.block_severity, r.fail_mode, r.detectors ? [...r.detectors].sort() : null, Object.entries(r.thresholds).sort(), Object.entries(r.actions).sort()];
  });
  return hash('sha256', JSON.stringify([name, plain]), 'hex').slice(0, 12);
}

/** Every policy of a configuration, resolved, and the rule that picks one for a request. */
export class PolicyBook {
  private readonly compiled = new Map<string, CompiledPolicy>();
  private readonly routes: Readonly<Record<string, string>>;
  private readonly models: Readonly<Record<string, string>>;

  /** Throws a TypeError listing the problems when the configuration's policies are not valid. */
  constructor(config: PolicyConfig) {
    const policies = config.policies ?? {};
    const problems = policyProblems({ policies, policy_routing: { routes: config.policy_routing?.routes ?? {}, models: config.policy_routing?.models ?? {}, jwt_claim: '' } });
    if (problems.length) throw new TypeError(`invalid policies: ${problems.join('; ')}`);
    const base = builtin(config);
    const resolve = (name: string): Record<Target, TargetRules> => {
      const done = this.compiled.get(name);
      if (done) return done.targets;
      const parent = parentOf(name, policies);
      const rules = extend(parent === null ? base : resolve(parent), policies[name] ?? {});
      this.compiled.set(name, { name, version: versionOf(name, rules), targets: rules });
      return rules;
    };
    resolve(BUILTIN_POLICY);
    for (const name of Object.keys(policies)) resolve(name);
    this.routes = config.policy_routing?.routes ?? {};
    this.models = config.policy_routing?.models ?? {};
  }

  names(): string[] {
    return [...this.compiled.keys()];
  }

  get(name: string): CompiledPolicy | undefined {
    return this.compiled.get(name);
  }

  /**
   * The policy a request gets, most specific first: the credential's (API key or JWT claim: one
   * application), the requested model's pin (one model alias, whoever calls it), the route's pin
   * (one endpoint), then `default`. A credential naming a policy the configuration no longer
   * defines gets `default` (source `default`), so a removed policy never fails requests open or shut silently.
   */
  choose(req: PolicyRequest): { policy: CompiledPolicy; source: PolicySource } {
    const byCredential = req.credential ? this.compiled.get(req.credential) : undefined;
    if (byCredential) return { policy: byCredential, source: 'credential' };
    const modelPin = req.model !== undefined ? this.models[req.model] : undefined;
    if (modelPin !== undefined && this.compiled.has(modelPin)) return { policy: this.compiled.get(modelPin)!, source: 'model' };
    const routePin = req.route !== undefined ? this.routes[req.route] : undefined;
    if (routePin !== undefined && this.compiled.has(routePin)) return { policy: this.compiled.get(routePin)!, source: 'route' };
    return { policy: this.compiled.get(BUILTIN_POLICY)!, source: 'default' };
  }

  /** A plain view of a policy (the settings API and the dashboard). */
  describe(name: string): Record<string, unknown> | null {
    const p = this.compiled.get(name);
    if (!p) return null;
    const targets: Record<string, unknown> = {};
    for (const t of TARGETS) {
      const r = p.targets[t];
      targets[t] = { block_severity: r.block_severity, fail_mode: r.fail_mode, detectors: r.detectors ? [...r.detectors] : null, thresholds: r.thresholds, actions: r.actions };
    }
    return { name: p.name, version: p.version, targets };
  }
}

/**
 * The policy book of a configuration, built once per configuration object (a reload or a
 * settings change makes a new one), so resolving a request's policy is a few map lookups.
 */
export function policyBookCache(): (config: PolicyConfig) => PolicyBook {
  let last: { config: PolicyConfig; book: PolicyBook } | null = null;
  return (config) => {
    if (last !== null && last.config === config) return last.book;
    // Same sections as before (a settings change to rate_limit gives a new object): keep the book.
    if (
      last !== null &&
      last.config.policies === config.policies &&
      last.config.policy_routing === config.policy_routing &&
      last.config.security.mode === config.security.mode &&
      last.config.security.block_severity === config.security.block_severity &&
      last.config.security.fail_mode === config.security.fail_mode
    ) {
      last = { config, book: last.book };
      return last.book;
    }
    try {
      last = { config, book: new PolicyBook(config) };
    } catch (err) {
      // Validated on load and on PUT /v1/settings, so only a combination of the two can get here
      // (a settings override valid over the old file, not over the reloaded one): keep the
      // running policies rather than failing every scan.
      if (last === null) throw err;
      log.error({ err: (err as Error).message }, 'policies not valid; keeping the running ones');
      last = { config, book: last.book };
    }
    return last.book;
  };
}
