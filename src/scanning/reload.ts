/**
 * A rule reload of the scan pool (src/scanning/pool.ts): re-reads the rules, and when they or
 * the plugin settings changed, starts a new generation of workers and swaps it in; the previous
 * generation is retired once its running tasks finish. Never throws: a refused reload is a
 * result with ok=false, and the previous generation stays.
 */
import { retire, startGeneration, type Generation } from './generation.js';
import type { ReloadResult } from './pool-types.js';
import { formatIssue, loadRuleSet, RuleLoadError, type RuleIssue, type RuleSet } from './rules/load.js';

export interface PluginSettings {
  enabledPlugins?: string[];
  pluginConfig?: Record<string, Record<string, unknown>>;
}

export async function reloadGeneration(
  previous: Generation,
  changes: PluginSettings,
  ctx: PluginSettings & {
    /** The rule directories (or files), loaded as one set. */
    rulesDir: string | readonly string[];
    pluginDirs: string[];
    workers: number;
    inline: boolean;
    /** The pool was closed (checked before starting and again right before the swap). */
    closed(): boolean;
    /** Makes `next` the pool's generation, with the settings it was started with. */
    swap(next: Generation, settings: PluginSettings): void;
  },
): Promise<ReloadResult> {
      const base = { at: new Date().toISOString(), previousVersion: previous.describe.rulesVersion };
  const refuse = (error: string, issues?: RuleIssue[]): ReloadResult => ({
    ok: false,
    changed: false,
    ...base,
    rulesVersion: previous.describe.rulesVersion,
    ruleCount: previous.describe.ruleCount,
    error,
    ...(issues ? { issues } : {}),
  });
  let result: ReloadResult;
  if (ctx.closed()) result = refuse('scan pool is closed');
  else {
    let rules: RuleSet | null = null;
    try {
      rules = loadRuleSet(ctx.rulesDir);
    } catch (err) {
      result = err instanceof RuleLoadError ? refuse(err.issues.map(formatIssue).join('\n'), err.issues) : refuse((err as Error).message);
    }
    if (rules !== null) {
      const enabledPlugins = changes.enabledPlugins ?? ctx.enabledPlugins;
      const pluginConfig = changes.pluginConfig ?? ctx.pluginConfig;
      const settingsChanged = changes.enabledPlugins !== undefined || changes.pluginConfig !== undefined;
      if (rules.version === previous.rules.version && !settingsChanged) {
        result = { ok: true, changed: false, ...base, rulesVersion: rules.version, ruleCount: previous.describe.ruleCount };
      } else {
        try {
          const next = await startGeneration(rules, { pluginDirs: ctx.pluginDirs, enabledPlugins, pluginConfig }, ctx.workers, ctx.inline);
          if (ctx.closed()) {
            await next.piscina.destroy();
            result = refuse('scan pool closed during reload');
          } else {
            ctx.swap(next, { enabledPlugins, pluginConfig });
            retire(previous);
            result = { ok: true, changed: true, ...base, rulesVersion: rules.version, ruleCount: next.describe.ruleCount };
          }
        } catch (err) {
          result = refuse(`workers could not start with the new settings: ${(err as Error).message}`);
        }
      }
    }
  }
  return result!;
}
