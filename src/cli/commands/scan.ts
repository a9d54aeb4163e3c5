/**
 * `warden scan`: gates text, files and JSONL rows, offline (the detectors in this process) or,
 * with `--server URL`, through a running Warden (no detector start-up per call). Output is one
 * JSON verdict per input (JSONL), in order; a summary goes to stderr. The exit code is the gate
 * (docs/scanning.md, "warden scan in CI"):
 *   0  nothing reached --fail-on (default block)
 *   1  at least one input reached it: blocked (or, with --fail-on flag, flagged or blocked)
 *   2  usage: a bad option, value or configuration; nothing was scanned
 *   3  an input could not be scanned (bad JSONL row, unreadable file, server error); the others were
 * When several apply, the highest wins: 2, then 3, then 1.
 * Other modes of the command (e.g. `--job`) plug in through addScanMode().
 */
import type { Command } from 'commander';
import type { OfflineOptions, OfflineScanner } from '../../scanning/offline.js';
import type { PolicyConfig } from '../../policies/resolve.js';
import { DEFAULT_POLICY, type ScanPolicy } from '../../scanning/policy.js';
import { SEVERITIES, TARGETS, type Target } from '../../scanning/types.js';
import { jsonlRows, openJsonl, scanItems, type ItemOrigin, type ScanItem } from '../scan/inputs.js';
import { remoteScanner, type RemoteVerdict } from '../scan/remote.js';
import { stdio, type CliIO } from './rules.js';
import { addJobOptions, runScanJob, type ScanJobOptions } from './scan-job.js';

/** The exit codes of `warden scan` (documented in docs/scanning.md). */
export const SCAN_EXIT = { clean: 0, failOn: 1, usage: 2, error: 3 } as const;
export const FAIL_ON = ['block', 'flag', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export interface ScanCliOptions {
  config?: string;
  file?: string;
  /** What the text is, as the API names it. */
  source?: string;
  /** Deprecated spelling of source. */
  target?: string;
  /** Rule directories added beside the shipped rules (repeatable). */
  rules?: string[];
  /** A rule directory that replaces the shipped rules. */
  rulesDir?: string;
  pluginDir?: string[];
  enable?: string;
  mode?: string;
  blockSeverity?: string;
  /** The policy of warden.yaml that decides the verdicts (default `default`). */
  policy?: string;
}

export class CliUsageError extends Error {}

/** `scanning.*`, `security.*` and `policies` of warden.yaml (--config or WARDEN_CONFIG), so offline
 * scans use the same rules, plugins and policies as the server; without a file, built-in defaults. */
async function fromConfig(path: string | undefined): Promise<OfflineOptions & { policies?: PolicyConfig['policies'] }> {
  if (path === undefined || path === '') return {};
  // Loaded on use: the configuration schema costs a second of start-up that `--server` never needs.
  const [{ loadConfig }, { pluginConfigOf }] = await Promise.all([import('../../config/load.js'), import('../../scan-service/plugin-config.js')]);
  let loaded;
  try {
    loaded = loadConfig({ path });
  } catch (err) {
    throw new CliUsageError(`config: ${(err as Error).message}`);
  }
  const { scanning, security, policies } = loaded.config;
  return {
    policies,
    rulesDir: scanning.rules_dir,
    rulesPaths: scanning.rules_paths,
    pluginDirs: scanning.plugin_dirs,
    enabledPlugins: scanning.enabled_plugins,
    pluginConfig: pluginConfigOf(loaded.config),
    policy: { mode: security.mode, block_severity: security.block_severity, fail_mode: security.fail_mode },
  };
}

/** Shared by scan and eval: turns CLI flags (over the config file, if any) into scanner
 * options, rejecting bad values. */
export async function scannerOptions(o: ScanCliOptions): Promise<OfflineOptions> {
  const base = await fromConfig(o.config ?? process.env.WARDEN_CONFIG);
  const policy: Partial<ScanPolicy> = { ...(base.policy ?? {}) };
  if (o.mode !== undefined) {
    if (o.mode !== 'enforce' && o.mode !== 'monitor') throw new CliUsageError(`--mode must be enforce or monitor (got "${o.mode}")`);
    policy.mode = o.mode;
  }
  if (o.blockSeverity !== undefined) {
    if (!SEVERITIES.includes(o.blockSeverity as never)) throw new CliUsageError(`--block-severity must be one of ${SEVERITIES.join(', ')} (got "${o.blockSeverity}")`);
    policy.block_severity = o.blockSeverity as ScanPolicy['block_severity'];
  }
  // The named policy over security.* as the flags left it (its own keys win over them).
  const { policyDecision, UnknownPolicyError } = await import('../scan/policy.js');
  let decision: OfflineOptions['decision'];
  try {
    decision = policyDecision(o.policy, { security: { ...DEFAULT_POLICY, ...policy }, policies: base.policies });
  } catch (err) {
    if (err instanceof UnknownPolicyError) throw new CliUsageError(err.message);
    throw err;
  }
  return {
    rulesDir: o.rulesDir ?? base.rulesDir,
    rulesPaths: [...(base.rulesPaths ?? []), ...(o.rules ?? [])],
    pluginDirs: o.pluginDir ?? base.pluginDirs,
    enabledPlugins: o.enable ? o.enable.split(',').map((s) => s.trim()).filter(Boolean) : base.enabledPlugins,
    pluginConfig: base.pluginConfig,
    policy,
    decision,
  };
}

export function checkTarget(t: string | undefined, what = '--target'): Target {
  const target = (t ?? 'prompt') as Target;
  if (!TARGETS.includes(target)) throw new CliUsageError(`${what} must be one of ${TARGETS.join(', ')} (got "${t}")`);
  return target;
}

/** The verdict fields of an offline result, as the API names them (threat ids are the server's). */
function offlineVerdict(r: Awaited<ReturnType<OfflineScanner['scanAsync']>>): RemoteVerdict {
  return {
    verdict: r.verdict,
    flagged: r.flagged,
    risk_score: r.risk_score,
    threats: r.threats.map(({ threat_id: _id, ...t }) => t),
    ...(r.error ? { error: r.error } : {}),
    ...(r.redacted_text !== undefined ? { redacted_text: r.redacted_text } : {}),
    latency_ms: r.latency_ms,
  };
}

/** Reads JSONL rows; calls `row` for good ones and `bad` for lines that are not {"text": string} (used by `warden eval`). */
export async function readJsonl(
  path: string,
  row: (value: Record<string, unknown>, line: number) => void | Promise<void>,
  bad: (line: number, message: string) => void,
): Promise<void> {
  for await (const r of jsonlRows(openJsonl(path))) {
    if ('error' in r) bad(r.line, r.error);
    else await row(r.value, r.line);
  }
}

/** The source given by --source, or by the deprecated --target (with a warning). */
function sourceOption(o: ScanCliOptions, io: CliIO): string | undefined {
  if (o.target !== undefined) {
    io.err('warden: --target is deprecated, use --source (the name the API uses)');
    if (o.source !== undefined && o.source !== o.target) throw new CliUsageError(`--source "${o.source}" and --target "${o.target}" disagree; give only --source`);
  }
  return o.source ?? o.target;
}

/** Checks the source and builds the offline scanner; on failure prints why and gives the exit code (2 usage, 1 other). */
export async function openScanner(command: string, o: ScanCliOptions, io: CliIO): Promise<{ scanner: OfflineScanner; target: Target } | number> {
  try {
    const target = checkTarget(sourceOption(o, io), o.target !== undefined && o.source === undefined ? '--target' : '--source');
    const { createOfflineScanner } = await import('../../scanning/offline.js');
    const options = await scannerOptions(o);
    return { scanner: await createOfflineScanner(options), target };
  } catch (err) {
    io.err(`warden ${command}: ${(err as Error).message}`);
    return err instanceof CliUsageError ? 2 : 1;
  }
}

export interface ScanRunOptions extends ScanCliOptions {
  failOn?: string;
  server?: string;
  apiKey?: string;
  batchSize?: string;
  jsonl?: boolean;
}

/** Offline-only options, refused with --server (the server scans with its own configuration). */
const OFFLINE_ONLY: Array<[keyof ScanRunOptions, string]> = [
  ['config', '--config'],
  ['rules', '--rules'],
  ['rulesDir', '--rules-dir'],
  ['pluginDir', '--plugin-dir'],
  ['enable', '--enable'],
  ['mode', '--mode'],
  ['blockSeverity', '--block-severity'],
  ['policy', '--policy'],
];

type Scan = (items: Array<{ text: string; source: Target }>) => Promise<RemoteVerdict[]>;

/** Validates the options and opens the scanner: in this process, or the server's. */
async function openScan(o: ScanRunOptions, io: CliIO): Promise<{ scan: Scan; source: Target; batch: number } | number> {
  try {
    if (o.server !== undefined) {
      const offline = OFFLINE_ONLY.filter(([k]) => o[k] !== undefined && !(Array.isArray(o[k]) && (o[k] as unknown[]).length === 0)).map(([, f]) => f);
      if (offline.length > 0) throw new CliUsageError(`${offline.join(', ')} only apply to offline scans; with --server the server scans with its own configuration`);
      const source = checkTarget(sourceOption(o, io), '--source');
      const batch = Number(o.batchSize ?? 100);
      if (!Number.isInteger(batch) || batch < 1) throw new CliUsageError(`--batch-size must be a positive integer (got "${o.batchSize}")`);
      const remote = (() => {
        try {
          return remoteScanner(o.server, o.apiKey ?? process.env.WARDEN_API_KEY);
        } catch (err) {
          throw new CliUsageError((err as Error).message);
        }
      })();
      return { scan: (items) => remote.scanBatch(items), source, batch };
    }
    if (o.batchSize !== undefined || o.apiKey !== undefined) throw new CliUsageError('--batch-size and --api-key only apply with --server');
  } catch (err) {
    io.err(`warden scan: ${(err as Error).message}`);
    return SCAN_EXIT.usage;
  }
  const opened = await openScanner('scan', o, io);
  if (typeof opened === 'number') return opened === 2 ? SCAN_EXIT.usage : SCAN_EXIT.error;
  const { scanner, target } = opened;
  return { scan: (items) => Promise.all(items.map(async (it) => offlineVerdict(await scanner.scanAsync(it.text, it.source)))), source: target, batch: 1 };
}

export async function runScan(args: string | string[] | undefined, o: ScanRunOptions, io: CliIO = stdio, stdin: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin): Promise<number> {
  const inputs = args === undefined ? [] : typeof args === 'string' ? [args] : args;
  const failOn = (o.failOn ?? 'block') as FailOn;
  if (!FAIL_ON.includes(failOn)) {
    io.err(`warden scan: --fail-on must be one of ${FAIL_ON.join(', ')} (got "${o.failOn}")`);
    return SCAN_EXIT.usage;
  }
  if (inputs.length === 0 && o.file === undefined && stdin.isTTY) {
    io.err('warden scan: give TEXT, FILE or DIRECTORY arguments, --file rows.jsonl, or pipe input on stdin (one text, or JSONL rows with --jsonl)');
    return SCAN_EXIT.usage;
  }
  const opened = await openScan(o, io);
  if (typeof opened === 'number') return opened;
  const { scan, source, batch } = opened;
  const counts = { inputs: 0, allow: 0, flag: 0, block: 0, errors: 0 };
  const pending: Array<{ item: ScanItem & { kind: 'text' }; source: Target } | { bad: string; origin: ItemOrigin }> = [];
  const emit = (origin: ItemOrigin, fields: Record<string, unknown>) => io.out(JSON.stringify({ ...origin, ...fields }));
  const flush = async () => {
    const texts = pending.flatMap((p) => ('item' in p ? [{ text: p.item.text, source: p.source }] : []));
    const verdicts = texts.length > 0 ? await scan(texts) : [];
    let v = 0;
    for (const p of pending.splice(0)) {
      counts.inputs++;
      if ('bad' in p) {
        counts.errors++;
        emit(p.origin, { error: p.bad });
        continue;
      }
      const verdict = verdicts[v++]!;
      if (verdict.verdict === undefined) counts.errors++;
      else counts[verdict.verdict]++;
      emit(p.item.origin, verdict);
    }
  };
  let aborted: string | null = null;
  try {
    for await (const item of scanItems({ args: inputs, file: o.file, jsonl: o.jsonl, stdin })) {
      if (item.kind === 'bad') pending.push({ bad: item.error, origin: item.origin });
      else {
        try {
          pending.push({ item, source: item.source === undefined ? source : checkTarget(item.source, '"source"') });
        } catch (err) {
          pending.push({ bad: (err as Error).message, origin: item.origin });
        }
      }
      if (pending.length >= batch) await flush();
    }
    await flush();
  } catch (err) {
    aborted = (err as Error).message;
  }
  const tripped = failOn === 'never' ? 0 : counts.block + (failOn === 'flag' ? counts.flag : 0);
  const code = aborted !== null || counts.errors > 0 ? SCAN_EXIT.error : tripped > 0 ? SCAN_EXIT.failOn : SCAN_EXIT.clean;
  if (aborted !== null) io.err(`warden scan: stopped: ${aborted}`);
  io.err(
    `warden scan: ${counts.inputs} input(s): ${counts.allow} allowed, ${counts.flag} flagged, ${counts.block} blocked, ${counts.errors} could not be scanned; ` +
      `exit ${code} (--fail-on ${failOn}${o.server !== undefined ? `, server ${o.server}` : ''})`,
  );
  return code;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function addScannerOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'warden.yaml to take scanning.* and security.* from (default: WARDEN_CONFIG)')
    .option('--source <source>', `what the text is, as the API names it: ${TARGETS.join(' | ')} (default prompt; a JSONL row may give its own "source")`)
    .option('--target <target>', 'deprecated: use --source')
    .option('--rules <dir>', 'a directory of your own rules, loaded BESIDE the shipped rules/ (repeatable)', collect)
    .option('--rules-dir <dir>', 'a rules directory that REPLACES the shipped rules/ (then only its rules run)')
    .option('--plugin-dir <dir>', 'extra plugin directory (repeatable)', collect)
    .option('--enable <names>', 'comma-separated plugins to run (default: all)')
    .option('--mode <mode>', 'enforce | monitor', undefined)
    .option('--block-severity <severity>', `lowest severity that blocks: ${SEVERITIES.join(' | ')}`)
    .option('--policy <name>', 'the policy of --config\'s policies that decides the verdicts: its detectors, actions, thresholds, block_severity and fail_mode (default: default, docs/policies.md)');
}

/** Another mode of `warden scan`, chosen by its own option (e.g. `--job`, src/cli/commands/scan-job.ts). */
export interface ScanMode {
  /** Commander flags, e.g. '--job <id>'. */
  flags: string;
  description: string;
  /** The camel-case option key commander sets, e.g. 'job'. */
  key: string;
  /** Runs instead of the usual scan when the option was given; resolves to the exit code. */
  run(value: unknown, args: string[], options: Record<string, unknown>, io: CliIO): Promise<number>;
}

const modes: ScanMode[] = [];

/** Adds a mode to the `scan` command: call from a command module's register(program), after scan.js registered (modules load in name order). */
export function addScanMode(program: Command, mode: ScanMode): void {
  const scan = program.commands.find((c) => c.name() === 'scan');
  if (scan === undefined) throw new Error('addScanMode: the scan command is not registered yet');
  scan.option(mode.flags, mode.description);
  modes.push(mode);
}

export function register(program: Command): void {
  addJobOptions(addScannerOptions(
    program
      .command('scan')
      .description('Scan texts, files, directories or JSONL rows (offline, or through a running Warden with --server) and print JSONL verdicts; the exit code gates CI (0 clean, 1 blocked/flagged per --fail-on, 2 usage, 3 not scanned)')
      .argument('[inputs...]', 'texts, files or directories to scan (.jsonl files: a row each; other files: the whole text); none or "-": stdin')
      .option('--file <rows.jsonl>', 'JSONL file of {"text": ..., "source"?: ..., "id"?: ...} rows (same as giving the path)')
      .option('--jsonl', 'read stdin (and files of any name) as JSONL rows')
      .option('--fail-on <verdict>', `exit 1 when an input is: ${FAIL_ON.join(' | ')} (flag: flagged or blocked)`, 'block')
      .option('--server <url>', 'send the inputs to a running Warden (POST /v1/scan/batch) instead of starting the detectors here')
      .option('--api-key <key>', 'API key for --server and --job (default: $WARDEN_API_KEY)')
      .option('--batch-size <n>', 'inputs per request with --server (default 100; at most the server\'s limits.batch_max_items)'),
  )).action(async (inputs: string[], o: ScanRunOptions & ScanJobOptions & Record<string, unknown>) => {
    // --job runs on a server instead (scan-job.ts); --source (shared with the offline scan) defaults to prompt there.
    if (o.job) return void (process.exitCode = await runScanJob({ ...o, source: o.source ?? 'prompt' }));
    const mode = modes.find((m) => o[m.key] !== undefined);
    process.exitCode = mode ? await mode.run(o[mode.key], inputs, o, stdio) : await runScan(inputs, o);
  });
}
