/**
 * The scanning engine as one worker sees it: normalise the input once, run every enabled plugin
 * for the target over it, merge the findings into threats and score them. No policy here (that
 * is applyPolicy, on the main thread), no ids, no I/O per scan.
 *
 * Plugins are directories `<dir>/<name>/index.js` default-exporting a DetectorPlugin (or an
 * AsyncDetectorPlugin). The built-in directory is dist/plugins; tests and deployments add more
 * with `pluginDirs`.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { emptySignals, normalise } from './normalise/index.js';
import { identityView } from './normalise/mapped.js';
import { CompiledRules } from './rules/compile.js';
import type { RuleSet } from './rules/load.js';
import { ATTACK_TYPES, SEVERITIES, SEVERITY_RANK, TARGETS } from './types.js';
import type { AnyDetectorPlugin, AttackType, DetectorContext, Finding, NormalisedInput, Severity, Span, Target } from './types.js';

/** dist/plugins, next to dist/src. */
export const BUILTIN_PLUGIN_DIR = fileURLToPath(new URL('../../plugins/', import.meta.url));

export interface EngineOptions {
  rules: RuleSet;
  /** Directories holding `<name>/index.js` plugins, searched in order. Default [BUILTIN_PLUGIN_DIR]. */
  pluginDirs?: string[];
  /** Plugin (directory) names to run, in this order; default every plugin found, in name order.
   * Unknown names are an error. */
  enabledPlugins?: string[];
  /** Per-plugin config, merged over the plugin's defaultConfig. */
  pluginConfig?: Record<string, Record<string, unknown>>;
}

export interface PluginInfo {
  /** The name it runs under (an instance name for `{plugin: <module>}` entries). */
  name: string;
  /** The plugin module, when it runs under an instance name. */
  plugin?: string;
  version: string;
  description: string;
  targets: Target[];
  path: string;
  /** Runs only because `scanning.plugins` configures it (meta.needsConfig): a model runner or a
   * remote guard, whose scan may wait on a session or the network. */
  needsConfig?: true;
}

export interface PluginLoadError {
  plugin: string;
  path: string;
  message: string;
}

/** A merged finding: one per rule, overlapping same-kind findings folded into the strongest. */
export interface EngineThreat {
  attackType: AttackType;
  severity: Severity;
  confidence: number;
  ruleId: string;
  detector: string;
  message: string;
  spans: Span[];
  /** Rule ids of weaker findings folded into this one. */
  related?: string[];
  /** What a context-aware check saw (the proxy's outcome guards: which argument, where a destination entered). */
  evidence?: Record<string, unknown>;
  /** The plugin that reported it, when that is not `detector` (the rules plugin names the rule
   * file): a policy's `detectors` may name either. */
  plugin?: string;
}

export type FailureKind = 'detector_error' | 'timeout' | 'worker_crash' | 'overloaded';

export interface ScanFailure {
  kind: FailureKind;
  /** The plugin at fault when known. */
  detector: string | null;
  message: string;
}

export interface EngineResult {
  threats: EngineThreat[];
  riskScore: number;
  /** Milliseconds per detector, plus 'normalise'. */
  timings: Record<string, number>;
  failures: ScanFailure[];
  /** Outcomes plugins counted with ctx.note(); absent when none did. */
  outcomes?: PluginOutcome[];
}

export interface PluginOutcome {
  detector: string;
  outcome: string;
}

export class EngineConfigError extends Error {
  override name = 'EngineConfigError';
}

const SEVERITY_WEIGHT: Record<Severity, number> = { low: 0.25, medium: 0.5, high: 0.8, critical: 1 };

/** The built-in plugin that reports rule-file hits under the rule file's name (plugins/rules). */
const RULES_PLUGIN = 'rules';

/**
 * A scan limited to some detectors (a policy's `detectors`): which plugins run and whose
 * findings count. A plugin runs when it is named, when it is the rules plugin and a rule file is
 * named, or when a plugin after it that runs decides from the earlier findings (`run_when:
 * uncertain`, plugins/run-when.ts): those see the same earlier findings as in a full scan, but
 * the findings of plugins nobody named do not count.
 */
interface Selection {
  run: boolean[];
  /** By plugin index: every finding of the plugin counts (it is named). */
  counts: boolean[];
  /** The names given: a finding whose detector is one of them counts too (a rule file). */
  names: ReadonlySet<string>;
}

interface LoadedPlugin {
  plugin: AnyDetectorPlugin;
  info: PluginInfo;
  config: Record<string, unknown>;
  state: unknown;
}

export class Engine {
  readonly rules: CompiledRules;
  readonly plugins: PluginInfo[];
  readonly loadErrors: PluginLoadError[];
  private readonly loaded: LoadedPlugin[];
  /** Selections already worked out, by target and names (a handful: one per policy target). */
  private readonly selections = new Map<string, Selection>();

  private constructor(rules: CompiledRules, loaded: LoadedPlugin[], loadErrors: PluginLoadError[]) {
    this.rules = rules;
    this.loaded = loaded;
    this.plugins = loaded.map((l) => l.info);
    this.loadErrors = loadErrors;
  }

  static async create(options: EngineOptions): Promise<Engine> {
    const rules = new CompiledRules(options.rules);
    const dirs = options.pluginDirs ?? [BUILTIN_PLUGIN_DIR];
    const found = findPlugins(dirs);
    const settings = options.pluginConfig ?? {};
    // `scanning.plugins.<instance>: {plugin: <module>, ...}` runs a plugin module under another
    // name, so one module (a model runner) can run several times with different settings.
    const moduleOf = new Map<string, string>();
    for (const [name, cfg] of Object.entries(settings)) {
      const mod = cfg?.plugin;
      if (mod === undefined) continue;
      if (typeof mod !== 'string' || !found.has(mod)) {
        throw new EngineConfigError(`scanning.plugins.${name}.plugin: ${JSON.stringify(mod)} is not a plugin; found: ${[...found.keys()].sort().join(', ') || 'none'} in ${dirs.join(', ')}`);
      }
      if (found.has(name) && name !== mod) throw new EngineConfigError(`scanning.plugins.${name}: the instance name is taken by the plugin "${name}"; pick another name`);
      moduleOf.set(name, mod);
    }
    const enabled = options.enabledPlugins;
    if (enabled !== undefined) {
      const unknown = enabled.filter((n) => !found.has(n) && !moduleOf.has(n));
      if (unknown.length > 0) {
        throw new EngineConfigError(`unknown plugin(s) ${unknown.map((u) => `"${u}"`).join(', ')}; found: ${[...found.keys()].sort().join(', ') || 'none'} in ${dirs.join(', ')}`);
      }
    }
    // Default: every plugin found, in name order, then the configured instances in config order.
    const names = enabled ?? [...[...found.keys()].sort(), ...[...moduleOf.keys()].filter((n) => !found.has(n))];
    const loaded: LoadedPlugin[] = [];
    const errors: PluginLoadError[] = [];
    for (const name of names) {
      const module = moduleOf.get(name) ?? name;
      const path = found.get(module)!;
      // A plugin somebody configured or asked for by name must work; one merely found is skipped and reported.
      const asked = enabled !== undefined || name in settings;
      try {
        const mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
        const plugin = checkPlugin(mod.default, module);
        if (plugin.meta.needsConfig && !(name in settings)) continue;
        const { plugin: _module, ...own } = settings[name] ?? {};
        const config = { ...plugin.meta.defaultConfig, ...own };
        if (plugin.meta.schema !== undefined) checkConfig(plugin.meta.schema, config, name);
        let state: unknown;
        try {
          state = plugin.setup ? await plugin.setup(config, name) : undefined;
        } catch (err) {
          // Unlike a plugin that fails to import, a plugin that rejects its configuration (a bad
          // model file, a wrong setting) is a configuration error, never silently skipped.
          throw new EngineConfigError(`plugin "${name}"${module !== name ? ` (${module})` : ''} (${path}) rejected its configuration: ${(err as Error)?.message ?? String(err)}`);
        }
        loaded.push({
          plugin,
          config,
          state,
          info: { name, ...(module !== name ? { plugin: module } : {}), version: plugin.meta.version, description: plugin.meta.description, targets: [...plugin.meta.targets], path, ...(plugin.meta.needsConfig ? { needsConfig: true as const } : {}) },
        });
      } catch (err) {
        if (err instanceof EngineConfigError) throw err;
        const message = (err as Error).message ?? String(err);
        if (asked) throw new EngineConfigError(`plugin "${name}"${module !== name ? ` (${module})` : ''} (${path}) failed to load: ${message}`);
        errors.push({ plugin: name, path, message });
      }
    }
    return new Engine(rules, loaded, errors);
  }

  /**
   * Scans one text on the calling thread; every plugin must be synchronous (a plugin that
   * returns a promise is reported as a detector_error). The CLI and tests use this; the scan
   * workers use run().
   */
  scan(text: string, target: Target, progress?: Int32Array, detectors?: readonly string[]): EngineResult {
    return this.runFrom(this.begin(text, target, progress, detectors), 0, false) as EngineResult;
  }

  /**
   * Scans one text. `progress`, when given, is a shared Int32Array the engine writes the index
   * of the running plugin into (slot 1), so whoever kills a hung worker can name the culprit.
   * `detectors`, when given, limits the scan to them (a policy's selection, see Selection): the
   * other plugins are not run unless a named one needs their findings, and only the named
   * detectors' findings are returned. Failures are returned as they are (the policy decides).
   * Returns a promise only when a plugin returned one: synchronous plugins are not awaited.
   */
  run(text: string, target: Target, progress?: Int32Array, detectors?: readonly string[]): EngineResult | Promise<EngineResult> {
    return this.runFrom(this.begin(text, target, progress, detectors), 0, true);
  }

  private selection(target: Target, detectors: readonly string[]): Selection {
    const key = `${target}\u0000${detectors.join('\u0000')}`;
    let sel = this.selections.get(key);
    if (sel !== undefined) return sel;
    const names = new Set(detectors);
    const ruleFile = this.rules.ruleSet.rules.some((r) => names.has(r.file));
    const counts = this.loaded.map((l) => names.has(l.info.name));
    const run = counts.map(() => false);
    let feedsLater = false;
    for (let i = this.loaded.length - 1; i >= 0; i--) {
      const l = this.loaded[i]!;
      if (!l.info.targets.includes(target)) continue;
      run[i] = counts[i]! || (ruleFile && l.info.name === RULES_PLUGIN) || feedsLater;
      if (run[i] && l.config.run_when === 'uncertain') feedsLater = true;
    }
    sel = { run, counts, names };
    if (this.selections.size >= 64) this.selections.clear();
    this.selections.set(key, sel);
    return sel;
  }

  private begin(text: string, target: Target, progress: Int32Array | undefined, detectors: readonly string[] | undefined): ScanState {
    const timings: Record<string, number> = {};
    const failures: ScanFailure[] = [];
    if (progress) Atomics.store(progress, 1, -1);
    const t0 = performance.now();
    let input: NormalisedInput;
    try {
      input = normalise(text, target, { triage: (t) => this.rules.triage(t, target) });
    } catch (err) {
      // Never expected; if it happens the detectors still see the original text, and the
      // failure is reported (fail mode applies) instead of killing the worker.
      failures.push({ kind: 'detector_error', detector: 'normalise', message: (err as Error)?.message ?? String(err) });
      input = { original: text, target, views: [identityView('original', text)], signals: emptySignals() };
    }
    // Every plugin sees the same input: frozen, so one cannot change what the next one scans.
    Object.freeze(input.views);
    Object.freeze(input.signals);
    Object.freeze(input);
    const t1 = performance.now();
    timings.normalise = t1 - t0;
    const only = detectors === undefined ? null : this.selection(target, detectors);
    return { text, target, input, progress, timings, failures, findings: [], outcomes: null, t1, only, uncounted: null };
  }

  /** Runs the plugins from index `start` on; switches to awaiting at the first promise. */
  private runFrom(s: ScanState, start: number, allowAsync: boolean): EngineResult | Promise<EngineResult> {
    for (let i = start; i < this.loaded.length; i++) {
      const l = this.loaded[i]!;
      if (s.only !== null ? !s.only.run[i] : !l.info.targets.includes(s.target)) continue;
      if (s.progress) Atomics.store(s.progress, 1, i);
      const t0 = s.t1;
      try {
        const out = l.plugin.scan(s.input, this.context(l, s));
        if (isPromiseLike(out)) {
          if (allowAsync) return this.settle(s, i, t0, out);
          out.then(undefined, () => undefined);
          throw new Error('scan() returned a promise; asynchronous plugins run only in the scan workers');
        }
        this.take(s, i, out);
      } catch (err) {
        s.failures.push({ kind: 'detector_error', detector: l.info.name, message: (err as Error)?.message ?? String(err) });
      }
      s.t1 = performance.now();
      s.timings[l.info.name] = s.t1 - t0;
    }
    if (s.progress) Atomics.store(s.progress, 1, -1);
    const threats = mergeFindings(s.uncounted === null ? s.findings : s.findings.filter((f) => !s.uncounted!.has(f)));
    const result: EngineResult = { threats, riskScore: riskScore(threats), timings: s.timings, failures: s.failures };
    if (s.outcomes !== null) result.outcomes = s.outcomes;
    return result;
  }

  private async settle(s: ScanState, i: number, t0: number, out: PromiseLike<Finding[]>): Promise<EngineResult> {
    const l = this.loaded[i]!;
    try {
      this.take(s, i, await out);
    } catch (err) {
      s.failures.push({ kind: 'detector_error', detector: l.info.name, message: (err as Error)?.message ?? String(err) });
    }
    s.t1 = performance.now();
    s.timings[l.info.name] = s.t1 - t0;
    return this.runFrom(s, i + 1, true);
  }

  private context(l: LoadedPlugin, s: ScanState): DetectorContext {
    const name = l.info.name;
    return {
      rules: this.rules,
      config: l.config,
      name,
      state: l.state,
      findings: s.findings,
      note: (outcome) => (s.outcomes ??= []).push({ detector: name, outcome: String(outcome) }),
    };
  }

  private take(s: ScanState, i: number, out: unknown): void {
    if (!Array.isArray(out)) throw new Error(`scan() returned ${typeof out}, not an array of findings`);
    const name = this.loaded[i]!.info.name;
    // A plugin that runs only for a named one after it: its findings are seen, not counted.
    const named = s.only !== null && !s.only.counts[i] ? s.only.names : null;
    for (const raw of out as Finding[]) {
      const f = checkFinding(raw, name, s.text.length);
      s.findings.push(f);
      if (named !== null && !named.has(f.detector!)) (s.uncounted ??= new Set()).add(f);
    }
  }
}

interface ScanState {
  text: string;
  target: Target;
  input: NormalisedInput;
  progress: Int32Array | undefined;
  timings: Record<string, number>;
  failures: ScanFailure[];
  findings: Finding[];
  outcomes: PluginOutcome[] | null;
  /** When the last step ended. */
  t1: number;
  /** The detectors the scan is limited to (null: every plugin). */
  only: Selection | null;
  /** Findings the later plugins see but that do not count (their detector was not named). */
  uncounted: Set<Finding> | null;
}

function isPromiseLike(v: unknown): v is PromiseLike<Finding[]> {
  return v !== null && typeof v === 'object' && typeof (v as PromiseLike<unknown>).then === 'function';
}

const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false });
const validators = new WeakMap<object, ValidateFunction>();

/** A config that fails the plugin's meta.schema: every problem, by path, in one message. */
function checkConfig(schema: Record<string, unknown>, config: Record<string, unknown>, name: string): void {
  let validate = validators.get(schema);
  if (validate === undefined) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (validate(config)) return;
  const problems = (validate.errors ?? []).map((e) => {
    const at = `scanning.plugins.${name}${e.instancePath.replace(/\//g, '.')}`;
    if (e.keyword === 'additionalProperties') return `${at}: unknown key "${(e.params as { additionalProperty: string }).additionalProperty}"`;
    return `${at} ${e.message ?? 'is invalid'}${e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : ''}`;
  });
  throw new Error(`invalid config: ${problems.join('; ')}`);
}

/** name -> index.js path; the first directory that has a name wins. */
export function findPlugins(dirs: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of dirs) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const index = join(dir, name, 'index.js');
      if (found.has(name) || !existsSync(index)) continue;
      try {
        if (statSync(join(dir, name)).isDirectory()) found.set(name, index);
      } catch {
        /* vanished while listing */
      }
    }
  }
  return found;
}

function checkPlugin(value: unknown, name: string): AnyDetectorPlugin {
  const p = value as AnyDetectorPlugin | undefined;
  if (p === undefined || p === null || typeof p !== 'object') throw new Error('no default export');
  if (typeof p.scan !== 'function') throw new Error('default export has no scan() function');
  const m = p.meta;
  if (m === undefined || typeof m !== 'object') throw new Error('default export has no meta');
  if (typeof m.name !== 'string' || m.name !== name) throw new Error(`meta.name must be "${name}" (the directory name), got ${JSON.stringify(m.name)}`);
  if (!Array.isArray(m.targets) || m.targets.some((t) => !TARGETS.includes(t))) throw new Error(`meta.targets must list ${TARGETS.join('/')}`);
  if (typeof m.defaultConfig !== 'object' || m.defaultConfig === null) throw new Error('meta.defaultConfig must be an object');
  return p;
}

/** A finding as the engine keeps it: checked, with the plugin that made it when its detector is another name. */
type CheckedFinding = Finding & { plugin?: string };

function checkFinding(f: Finding, plugin: string, length: number): CheckedFinding {
  const bad = (why: string): never => {
    throw new Error(`returned an invalid finding (${why}): ${JSON.stringify(f)?.slice(0, 200)}`);
  };
  if (f === null || typeof f !== 'object') bad('not an object');
  if (!ATTACK_TYPES.includes(f.attackType)) bad('attackType');
  if (!SEVERITIES.includes(f.severity)) bad('severity');
  if (typeof f.confidence !== 'number' || !(f.confidence >= 0 && f.confidence <= 1)) bad('confidence must be 0..1');
  if (typeof f.ruleId !== 'string' || f.ruleId === '') bad('ruleId');
  if (!Array.isArray(f.spans)) bad('spans');
  const spans: Span[] = [];
  for (const s of f.spans) {
    if (typeof s?.start !== 'number' || typeof s?.end !== 'number') bad('span');
    const start = Math.max(0, Math.min(length, Math.floor(s.start)));
    spans.push({ start, end: Math.max(start, Math.min(length, Math.ceil(s.end))) });
  }
  const detector = typeof f.detector === 'string' && f.detector !== '' ? f.detector : plugin;
  const checked: CheckedFinding = {
    attackType: f.attackType,
    severity: f.severity,
    confidence: f.confidence,
    ruleId: f.ruleId,
    message: typeof f.message === 'string' ? f.message : f.ruleId,
    spans,
    detector,
  };
  if (detector !== plugin) checked.plugin = plugin;
  return checked;
}

function stronger(a: { severity: Severity; confidence: number }, b: { severity: Severity; confidence: number }): boolean {
  const d = SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity];
  return d > 0 || (d === 0 && a.confidence > b.confidence);
}

function overlaps(a: Span[], b: Span[]): boolean {
  for (const x of a) for (const y of b) if (x.start < y.end && y.start < x.end) return true;
  return false;
}

/** Sorted, with overlapping spans coalesced. */
function unionSpans(a: Span[], b: Span[]): Span[] {
  const all = [...a, ...b].sort((x, y) => x.start - y.start || x.end - y.end);
  const out: Span[] = [];
  for (const s of all) {
    const last = out[out.length - 1];
    if (last && s.start < last.end) last.end = Math.max(last.end, s.end);
    else if (last && s.start === last.start && s.end === last.end) continue;
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}

/**
 * Same rule id -> one threat (spans united, strongest severity and confidence kept). Then, per
 * attack type, threats whose spans overlap fold into the strongest of them: one attack phrase
 * caught by two rules is one threat, not two. Findings without spans never fold.
 */
export function mergeFindings(findings: readonly CheckedFinding[]): EngineThreat[] {
  const byRule = new Map<string, EngineThreat>();
  for (const f of findings) {
    const key = `${f.detector}\u0000${f.ruleId}`;
    const prev = byRule.get(key);
    if (prev === undefined) {
      const t: EngineThreat = {
        attackType: f.attackType,
        severity: f.severity,
        confidence: f.confidence,
        ruleId: f.ruleId,
        detector: f.detector ?? 'unknown',
        message: f.message,
        spans: unionSpans(f.spans, []),
      };
      if (f.plugin !== undefined) t.plugin = f.plugin;
      byRule.set(key, t);
      continue;
    }
    if (SEVERITY_RANK[f.severity] > SEVERITY_RANK[prev.severity]) prev.severity = f.severity;
    prev.confidence = Math.max(prev.confidence, f.confidence);
    prev.spans = unionSpans(prev.spans, f.spans);
  }
  // Strongest first, so each threat folds into the strongest overlapping one already kept.
  const sorted = [...byRule.values()].sort((a, b) => (stronger(a, b) ? -1 : stronger(b, a) ? 1 : 0));
  const kept: EngineThreat[] = [];
  for (const t of sorted) {
    const host = t.spans.length > 0 ? kept.find((k) => k.attackType === t.attackType && k.spans.length > 0 && overlaps(k.spans, t.spans)) : undefined;
    if (host === undefined) {
      kept.push(t);
      continue;
    }
    host.spans = unionSpans(host.spans, t.spans);
    (host.related ??= []).push(t.ruleId);
  }
  return kept;
}

/** 1 - prod(1 - weight(severity) * confidence): more and stronger threats push toward 1. */
export function riskScore(threats: EngineThreat[]): number {
  let keep = 1;
  for (const t of threats) keep *= 1 - SEVERITY_WEIGHT[t.severity] * t.confidence;
  return Math.round((1 - keep) * 10000) / 10000;
}
