/** The scan pool's public shapes: its options, requests, results, statistics and errors (src/scanning/pool.ts). */
import type { EngineResult, PluginInfo, PluginLoadError } from './engine.js';
import type { Registry } from 'prom-client';
import type { PrefilterKind } from './rules/compile.js';
import type { RuleIssue } from './rules/load.js';
import type { Target } from './types.js';

export interface ScanPoolOptions {
  /** Directory (or file) of rule YAML. Default <repo>/rules. */
  rulesDir?: string;
  /** More rule directories (or files) loaded beside rulesDir, as one set (`scanning.rules_paths`). */
  rulesPaths?: string[];
  /** Extra plugin directories searched after the built-in dist/plugins (e.g. test fixtures). */
  pluginDirs?: string[];
  /** false: only `pluginDirs`, no built-in plugins. Default true. */
  builtinPlugins?: boolean;
  /** Plugin names to run (default: every plugin found). */
  enabledPlugins?: string[];
  /** `scanning.plugins.<name>` config, merged over each plugin's defaultConfig. */
  pluginConfig?: Record<string, Record<string, unknown>>;
  /** Worker threads (default: available cores). */
  workers?: number;
  /** Per item, from the moment a worker starts it (default 1000). */
  scanTimeoutMs?: number;
  /** Items waiting beyond this are refused with failure kind 'overloaded' (default 10000). */
  maxQueue?: number;
  /** Longest accepted text in UTF-16 code units (default 1 MiB). */
  maxInputChars?: number;
  /** Registry for warden_* scanning metrics. */
  metrics?: Registry;
  /** Watch rulesDir and reload on change (default false). */
  watch?: boolean;
  /** Same as calling onReload(listener) right after creation. */
  onReload?: (result: ReloadResult) => void;
  /** `scan()` of a text up to this many UTF-16 units runs on the calling thread, without a
   * hop to a worker (0: never). Default INLINE_MAX_CHARS when every plugin is a built-in one,
   * else 0: code from other plugin directories is not known to run in linear time, and only a
   * worker can be stopped when a plugin hangs. Batches always go to the workers. */
  inlineMaxChars?: number;
  /** At most this share of the calling thread's time goes to inline scans (over windows of
   * INLINE_WINDOW_MS); beyond it, small scans queue for the workers too. Default 0.25. */
  inlineShare?: number;
}

export interface ScanRequest {
  text: string;
  /** Default 'prompt'. */
  target?: Target;
  /** Only these detectors (plugin, instance or rule file names: a policy's `detectors`): the
   * other plugins are not run unless a named one decides from their findings, and only the
   * named detectors' findings are returned (Engine.run). Default: every plugin. */
  detectors?: readonly string[];
}

/** What the detectors found for one text, timed; applyPolicy turns it into a verdict (the scan
 * service then records it; the proxy sees the recorded scan as a ScanOutcome, src/ports.ts). */
export interface DetectionResult extends EngineResult {
  /** Wall time from submission to result, ms. */
  latencyMs: number;
  rulesVersion: string;
}

export interface ScanItemError {
  error: { code: 'invalid_input'; message: string };
}

export type BatchItemResult = DetectionResult | ScanItemError;

export interface ReloadResult {
  ok: boolean;
  /** false when the files were re-read but nothing changed. */
  changed: boolean;
  at: string;
  rulesVersion: string;
  ruleCount: number;
  previousVersion: string;
  /** Why the reload was refused (the previous rule set stays active). */
  error?: string;
  issues?: RuleIssue[];
}

export interface ScanPoolStats {
  workers: number;
  /** Scans run on the calling thread (small inputs), and the bound in effect (0: off). */
  inlineScans: number;
  inlineMaxChars: number;
  /** The rule prefilter in use: the calling thread's engine's when small scans run there, else
   * what the workers used last: 're2-set' (the default), 'words' (WARDEN_PREFILTER=words: the
   * word prefilter in C, native/text, with RE2.Sets for the forms it cannot read as words) or
   * 'vectorscan' (WARDEN_PREFILTER=vectorscan, once its database is ready). */
  prefilter: PrefilterKind;
  /** The structure pass in use (src/scanning/structure.ts): 'native' (C, native/text) or
   * 'typescript' (the addon not built, or WARDEN_NATIVE_TEXT=0). */
  structure: 'native' | 'typescript';
  queueDepth: number;
  inFlight: number;
  utilization: number;
  completed: number;
  timeouts: number;
  crashes: number;
  detectorErrors: number;
  rulesVersion: string;
  ruleCount: number;
  rulesDir: string;
  rulesPaths: string[];
  plugins: PluginInfo[];
  pluginLoadErrors: PluginLoadError[];
  lastReload: ReloadResult | null;
  lastReloadError: string | null;
}

/** A text the pool will not scan (too long, not a string). Carries `status` 400 and `expose`,
 * the convention the HTTP error stage turns into a 400 with this message, wherever the text came
 * from (a chat message or a /v1/scan message list has no length limit of its own in the schema). */
export class ScanInputError extends Error {
  override name = 'ScanInputError';
  readonly code = 'invalid_input';
  readonly status = 400;
  readonly expose = true;
}

export class ScanPoolClosedError extends Error {
  override name = 'ScanPoolClosedError';
}

