/**
 * In-process scanning for the CLI (`warden scan`, `warden eval`): the same engine and policy
 * as the server, without workers or a server. Detectors run on the calling thread, which is
 * fine for a command-line tool and wrong for the server (use ScanPool there).
 */
import { BUILTIN_PLUGIN_DIR, Engine } from './engine.js';
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
}

export interface OfflineScanner {
  engine: Engine;
  policy: ScanPolicy;
  /** scanning.plugins.* as configured (e.g. the classifier's model path). */
  pluginConfig: Record<string, Record<string, unknown>>;
  /** Synchronous plugins only: one that returns a promise is reported as a detector_error. */
  scan(text: string, target?: Target): PolicyResult & { latency_ms: number };
  /** Every plugin, asynchronous ones (onnx-classifier, http-guard) awaited. */
  scanAsync(text: string, target?: Target): Promise<PolicyResult & { latency_ms: number }>;
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
  return {
    engine,
    policy,
    pluginConfig: options.pluginConfig ?? {},
    scan(text, target = 'prompt') {
      const t0 = performance.now();
      const r = engine.scan(text, target);
      return { ...applyPolicy(r, policy), latency_ms: Math.round((performance.now() - t0) * 1000) / 1000 };
    },
    async scanAsync(text, target = 'prompt') {
      const t0 = performance.now();
      const r = await engine.run(text, target);
      return { ...applyPolicy(r, policy), latency_ms: Math.round((performance.now() - t0) * 1000) / 1000 };
    },
  };
}
