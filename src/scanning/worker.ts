/**
 * Piscina worker: owns one Engine (rules compiled, plugins imported) built from workerData,
 * and runs scan tasks of one or more items. Policy, ids, metrics and I/O stay on the main
 * thread; this only returns findings and timings.
 *
 * Progress goes into a SharedArrayBuffer the main thread also holds:
 *   [0] index of the item being scanned (-1 before the first)
 *   [1] index of the plugin running (-1 outside plugins)
 *   [2] when the current item started, in ms after the task's `sentAt`
 * so when the main thread kills a hung or crashed worker it knows which item and which plugin.
 */
import { workerData } from 'piscina';
import { Engine, type EngineResult, type PluginInfo, type PluginLoadError } from './engine.js';
import type { PrefilterKind } from './rules/compile.js';
import type { RuleSet } from './rules/load.js';
import type { Target } from './types.js';

export interface WorkerInit {
  rules: RuleSet;
  pluginDirs: string[];
  enabledPlugins?: string[];
  pluginConfig?: Record<string, Record<string, unknown>>;
}

export interface ScanTaskItem {
  text: string;
  target: Target;
  /** Only these detectors (a policy's selection; Engine.run). */
  detectors?: readonly string[];
}

export type WorkerTask =
  | { kind: 'scan'; items: ScanTaskItem[]; progress: SharedArrayBuffer; sentAt: number }
  | { kind: 'describe' };

export interface DescribeResult {
  prefilter: PrefilterKind;
  plugins: PluginInfo[];
  loadErrors: PluginLoadError[];
  rulesVersion: string;
  ruleCount: number;
}

/** `prefilter`: which rule prefilter the worker's engine used for this task (vectorscan takes
 * over from the RE2.Sets once its database is ready). */
export type WorkerReply = { kind: 'scan'; results: EngineResult[]; prefilter: PrefilterKind } | ({ kind: 'describe' } & DescribeResult);

const init = workerData as WorkerInit;
let engine: Promise<Engine> | null = null;

function getEngine(): Promise<Engine> {
  engine ??= Engine.create({
    rules: init.rules,
    pluginDirs: init.pluginDirs,
    enabledPlugins: init.enabledPlugins,
    pluginConfig: init.pluginConfig,
  });
  return engine;
}

export default async function handle(task: WorkerTask): Promise<WorkerReply> {
  const e = await getEngine();
  if (task.kind === 'describe') {
    return { kind: 'describe', prefilter: e.rules.prefilterKind, plugins: e.plugins, loadErrors: e.loadErrors, rulesVersion: e.rules.version, ruleCount: e.rules.ruleCount };
  }
  const progress = new Int32Array(task.progress);
  const results: EngineResult[] = [];
  for (let i = 0; i < task.items.length; i++) {
    Atomics.store(progress, 2, Date.now() - task.sentAt);
    Atomics.store(progress, 0, i);
    const item = task.items[i]!;
    const r = e.run(item.text, item.target, progress, item.detectors);
    results.push(r instanceof Promise ? await r : r);
  }
  return { kind: 'scan', results, prefilter: e.rules.prefilterKind };
}
