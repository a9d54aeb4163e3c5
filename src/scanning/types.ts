/**
 * The seam between the scanning engine and detector plugins.
 *
 * The engine normalises the input once, runs every enabled plugin over the normalised
 * views inside a worker thread, then merges the plugins' findings into threats and applies
 * the policy. Plugins never see HTTP, config files or the event bus: only a NormalisedInput,
 * their own config and the compiled rule set.
 */

import type { TextStructure } from './structure.js';

export type Severity = 'low' | 'medium' | 'high' | 'critical';
export const SEVERITIES: readonly Severity[] = ['low', 'medium', 'high', 'critical'];
/** Order of severities, for comparing two (the engine keeps the worst of merged findings, the
 * policy blocks at or above security.block_severity). */
export const SEVERITY_RANK: Readonly<Record<Severity, number>> = { low: 0, medium: 1, high: 2, critical: 3 };

export type AttackType =
  | 'prompt_injection'
  | 'indirect_injection'
  | 'jailbreak'
  | 'system_prompt_extraction'
  | 'data_exfiltration'
  | 'obfuscation'
  | 'secret_exposure'
  | 'pii_exposure'
  | 'canary_leak'
  | 'tool_hijack';
export const ATTACK_TYPES: readonly AttackType[] = [
  'prompt_injection',
  'indirect_injection',
  'jailbreak',
  'system_prompt_extraction',
  'data_exfiltration',
  'obfuscation',
  'secret_exposure',
  'pii_exposure',
  'canary_leak',
  'tool_hijack',
];

/** Where a text came from. `prompt`: user turns and prompts; `rag`: retrieved documents and
 * tool results (data that should hold no instructions); `output`: the model's own answer. */
export type Target = 'prompt' | 'rag' | 'output';
export const TARGETS: readonly Target[] = ['prompt', 'rag', 'output'];

export type Verdict = 'allow' | 'flag' | 'block';
export type ActionTaken = 'blocked' | 'flagged' | 'sanitized' | 'logged';

/** Half-open range [start, end) in UTF-16 code units of the ORIGINAL input text. */
export interface Span {
  start: number;
  end: number;
}

/** One way of looking at the input. `original` is always views[0]. */
export interface TextView {
  /** e.g. 'original', 'normalised', 'decoded:base64', 'decoded:hex', 'decoded:url', 'decoded:rot13', 'despaced' */
  kind: string;
  text: string;
  /** Maps a range of this view's text back to a range of the original input. */
  toOriginal(start: number, end: number): Span;
}

/** Counters the normaliser saw while building the views; the obfuscation detector reads them. */
export interface NormalisationSignals {
  invisibleChars: number;
  tagChars: number;
  bidiControls: number;
  confusables: number;
  leetspeakWords: number;
  spacedWords: number;
  decodedPayloads: number;
}

export interface NormalisedInput {
  original: string;
  target: Target;
  views: TextView[];
  signals: NormalisationSignals;
  /** The original holds only ASCII: UTF-8 byte offsets equal UTF-16 offsets, and there is no
   * look-alike, invisible or encoded-Unicode disguise in it. Set by normalise(); absent on
   * inputs built by hand. */
  ascii?: boolean;
  /** The original as UTF-8, built on first use and shared by every plugin. RE2 converts a
   * string argument to UTF-8 on every call (and maps offsets back); a Buffer it reads as is.
   * With `ascii`, match offsets in it are string offsets. Set by normalise(). */
  readonly originalUtf8?: Buffer;
  /** Where the original reads as natural language and where it is data (tables, logs, hashes,
   * blobs, runs of one character): computed on first use, once per text, and shared by every
   * plugin (structure.ts). Set by normalise(); plugins compute it themselves when absent. */
  readonly structure?: TextStructure;
}

/** A rule from rules/*.yaml that matched one view of the input. */
export interface RuleHit {
  ruleId: string;
  /** Rule file stem, e.g. 'prompt-injection' for rules/prompt-injection.yaml. */
  file: string;
  title: string;
  attackType: AttackType;
  severity: Severity;
  confidence: number;
  /** Spans in the original text. */
  spans: Span[];
  viewKind: string;
}

/** The compiled rule set, as plugins see it. */
export interface RuleMatcher {
  /** Every rule (for the input's target) that matches any view of the input. */
  match(input: NormalisedInput): RuleHit[];
  readonly ruleCount: number;
  readonly version: string;
}

export interface DetectorContext {
  rules: RuleMatcher;
  /** The plugin's defaultConfig merged with `scanning.plugins.<name>` from warden.yaml. */
  config: Record<string, unknown>;
  /** The name this plugin runs under: its own, or the instance name of a
   * `scanning.plugins.<instance>: {plugin: <module>}` entry. */
  name?: string;
  /** What setup() returned for this instance (undefined without setup). */
  state?: unknown;
  /** Findings of the plugins that ran before this one on the same input (for plugins that run
   * only when the cheaper detectors are undecided). */
  findings?: readonly Finding[];
  /** Counts one outcome of this plugin (e.g. 'clean', 'timeout') in warden_plugin_outcomes_total. */
  note?(outcome: string): void;
}

/** What a plugin reports. The engine turns findings into threats (ids, action_taken). */
export interface Finding {
  attackType: AttackType;
  severity: Severity;
  /** 0..1 */
  confidence: number;
  /** A stable id: the rule id for rule hits, `<plugin>.<check>` for code checks. */
  ruleId: string;
  message: string;
  spans: Span[];
  /** Who found it; the engine fills in the plugin name when absent. The rules plugin sets the
   * rule file stem (e.g. 'prompt-injection') so threats name the rule family. */
  detector?: string;
}

export interface DetectorMeta {
  /** kebab-case, unique; also the `detector` field of threats. */
  name: string;
  version: string;
  description: string;
  targets: Target[];
  defaultConfig: Record<string, unknown>;
  /** JSON Schema of the merged config; a config that fails it is a start-up/reload error. */
  schema?: Record<string, unknown>;
  /** Does nothing without its own settings: run only when `scanning.plugins` configures it (under
   * its own name or as `{plugin: <name>}` of an instance), never merely because it was found. */
  needsConfig?: boolean;
}

export interface DetectorPlugin {
  meta: DetectorMeta;
  /** Loads what an instance needs (a model, a client) once per worker, before any scan; throwing
   * is a start-up/reload error. The value is handed to scan() as ctx.state. */
  setup?(config: Record<string, unknown>, name: string): unknown;
  scan(input: NormalisedInput, ctx: DetectorContext): Finding[];
}

/** A plugin that must wait (a model session, a remote guard): scan() may return a promise, and
 * only then does the engine await it, so synchronous plugins keep their speed. Such plugins run
 * in the scan workers (ScanPool); the in-process CLI scanner takes synchronous plugins only. */
export interface AsyncDetectorPlugin extends Omit<DetectorPlugin, 'scan'> {
  scan(input: NormalisedInput, ctx: DetectorContext): Finding[] | Promise<Finding[]>;
}

export type AnyDetectorPlugin = DetectorPlugin | AsyncDetectorPlugin;
