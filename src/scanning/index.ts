/**
 * Public API of the scanning core. The HTTP layer needs only this module:
 *   const pool = await ScanPool.create({ rulesDir, workers, scanTimeoutMs, metrics: registry, watch: true });
 *   const outcome = await pool.scan({ text, target: 'prompt' });
 *   const result = applyPolicy(outcome, { mode, block_severity, fail_mode });
 */
export { ScanPool, ScanInputError, ScanPoolClosedError, DEFAULT_RULES_DIR } from './pool.js';
export type { ScanPoolOptions, ScanRequest, ScanOutcome, ScanItemError, BatchItemResult, ReloadResult, ScanPoolStats } from './pool.js';
export { applyPolicy, DEFAULT_POLICY } from './policy.js';
export type { ScanPolicy, SecurityMode, FailMode, Threat, PolicyResult, ScanErrorMarker, PolicyInput } from './policy.js';
export { Engine, EngineConfigError, BUILTIN_PLUGIN_DIR, mergeFindings, riskScore } from './engine.js';
export type { EngineOptions, EngineResult, EngineThreat, ScanFailure, FailureKind, PluginInfo, PluginLoadError } from './engine.js';
export { normalise } from './normalise/index.js';
export { loadRuleSet, parseRuleSources, formatIssue, RuleLoadError } from './rules/load.js';
export type { RuleSet, RuleIssue, RuleIssueKind } from './rules/load.js';
export type { RuleSpec, RuleDefinition, RuleCondition } from './rules/schema.js';
export { CompiledRules } from './rules/compile.js';
export { runRuleTests } from './rules/tests.js';
export type { RuleTestReport } from './rules/tests.js';
export * from './types.js';
