/**
 * In-process scanning for the CLI (`warden scan`, `warden eval`): the same engine and policy
 * as the server, without workers or a server. Detectors run on the calling thread, which is
 * fine for a command-line tool and wrong for the server (use ScanPool there).
 */
import { BUILTIN_PLUGIN_DIR, Engine, type EngineResult } from './engine.js';
import { applyPolicy, DEFAULT_POLICY, type PolicyResult, type ScanPolicy } from './policy.js';
import { DEFAULT_RULES_DIR } from './pool.js';
import { loadRuleSet } from './rules/load.js';
import type { Target } from './types.js';

export interface OfflineOptions {
  rulesDir?: string;
  /** More rule directories loaded beside rulesDir (default: the shipped rules/). */
  rulesPaths?: string[];
  pluginDirs?: string[];
  builtinPlugins?: boolean;
  enabledPlugins?: string[];
  pluginConfig?: Record<string, Record<string, unknown>>;
  policy?: Partial<ScanPolicy>;
  /** How a target's scans are decided instead of `policy`: a named policy of warden.yaml (the
   * CLI's --policy, src/cli/scan/policy.ts). */
  decision?: (target: Target) => TargetDecision;
}

/** The detectors a target's scans run (Engine.run) and how their findings become a verdict. */
export interface TargetDecision {
  detectors?: readonly string[];
  decide(result: EngineResult, text: string): OfflineResult;
}

/** A verdict, and the text with the spans the policy redacts replaced (when it redacted any). */
export type OfflineResult = PolicyResult & { redacted_text?: string };

export interface OfflineScanner {
  engine: Engine;
  policy: ScanPolicy;
  /** scanning.plugins.* as configured (e.g. the classifier's model path). */
  pluginConfig: Record<string, Record<string, unknown>>;
  /** Synchronous plugins only: one that returns a promise is reported as a detector_error. */
  scan(text: string, target?: Target): OfflineResult & { latency_ms: number };
  /** Every plugin, asynchronous ones (onnx-classifier, http-guard) awaited. */
  scanAsync(text: string, target?: Target): Promise<OfflineResult & { latency_ms: number }>;
}

export async function createOfflineScanner(options: OfflineOptions = {}): Promise<OfflineScanner> {
  const rules = loadRuleSet([options.rulesDir ?? DEFAULT_RULES_DIR, ...(options.rulesPaths ?? [])]);
  const engine = await Engine.create({
    rules,
    pluginDirs: [...(options.builtinPlugins === false ? [] : [BUILTIN_PLUGIN_DIR]), ...(options.pluginDirs ?? [])],
    enabledPlugins: options.enabledPlugins,
    pluginConfig: options.pluginConfig,
  });
  const policy: ScanPolicy = { ...DEFAULT_POLICY, ...(options.policy ?? {}) };
  const byPolicy: TargetDecision = { decide: (r) => applyPolicy(r, policy) };
  const decision = options.decision ?? (() => byPolicy);
  const ms = (t0: number) => Math.round((performance.now() - t0) * 1000) / 1000;
  return {
    engine,
    policy,
    pluginConfig: options.pluginConfig ?? {},
    scan(text, target = 'prompt') {
      const t0 = performance.now();
      const d = decision(target);
      return { ...d.decide(engine.scan(text, target, undefined, d.detectors), text), latency_ms: ms(t0) };
    },
    async scanAsync(text, target = 'prompt') {
      const t0 = performance.now();
      const d = decision(target);
      return { ...d.decide(await engine.run(text, target, undefined, d.detectors), text), latency_ms: ms(t0) };
    },
  };
}
