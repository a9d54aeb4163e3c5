/**
 * `warden scan`: offline, in-process scanning. Input is the TEXT argument, or stdin, or
 * `--file rows.jsonl` with one {"text": ..., "id"?: ..., "target"?: ...} per line. Output is
 * one JSON verdict per input line (JSONL). A bad row gets an {"line", "error"} entry in its
 * place and the rest are still scanned; the exit code is then 1. Exit 0 otherwise, whatever
 * the verdicts (use `jq` on the output to gate on them).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.js';
import { pluginConfigOf } from '../../scan-service/plugin-config.js';
import { createOfflineScanner, type OfflineOptions, type OfflineScanner } from '../../scanning/offline.js';
import type { PolicyResult, ScanPolicy } from '../../scanning/policy.js';
import { SEVERITIES, TARGETS, type Target } from '../../scanning/types.js';
import { stdio, type CliIO } from './rules.js';
import { addJobOptions, runScanJob, type ScanJobOptions } from './scan-job.js';

export interface ScanCliOptions {
  config?: string;
  file?: string;
  target?: string;
  rules?: string;
  pluginDir?: string[];
  enable?: string;
  mode?: string;
  blockSeverity?: string;
}

export class CliUsageError extends Error {}

/** `scanning.*` and `security.*` of warden.yaml (--config or WARDEN_CONFIG), so offline scans
 * use the same rules, plugins and policy as the server; without a file, built-in defaults. */
function fromConfig(path: string | undefined): OfflineOptions {
  if (path === undefined || path === '') return {};
  let loaded;
  try {
    loaded = loadConfig({ path });
  } catch (err) {
    throw new CliUsageError(`config: ${(err as Error).message}`);
  }
  const { scanning, security } = loaded.config;
  return {
    rulesDir: scanning.rules_dir,
    pluginDirs: scanning.plugin_dirs,
    enabledPlugins: scanning.enabled_plugins,
    pluginConfig: pluginConfigOf(loaded.config),
    policy: { mode: security.mode, block_severity: security.block_severity, fail_mode: security.fail_mode },
  };
}

/** Shared by scan and eval: turns CLI flags (over the config file, if any) into scanner
 * options, rejecting bad values. */
export function scannerOptions(o: ScanCliOptions): OfflineOptions {
  const base = fromConfig(o.config ?? process.env.WARDEN_CONFIG);
  const policy: Partial<ScanPolicy> = { ...(base.policy ?? {}) };
  if (o.mode !== undefined) {
    if (o.mode !== 'enforce' && o.mode !== 'monitor') throw new CliUsageError(`--mode must be enforce or monitor (got "${o.mode}")`);
    policy.mode = o.mode;
  }
  if (o.blockSeverity !== undefined) {
    if (!SEVERITIES.includes(o.blockSeverity as never)) throw new CliUsageError(`--block-severity must be one of ${SEVERITIES.join(', ')} (got "${o.blockSeverity}")`);
    policy.block_severity = o.blockSeverity as ScanPolicy['block_severity'];
  }
  return {
    rulesDir: o.rules ?? base.rulesDir,
    pluginDirs: o.pluginDir ?? base.pluginDirs,
    enabledPlugins: o.enable ? o.enable.split(',').map((s) => s.trim()).filter(Boolean) : base.enabledPlugins,
    pluginConfig: base.pluginConfig,
    policy,
  };
}

export function checkTarget(t: string | undefined, what = '--target'): Target {
  const target = (t ?? 'prompt') as Target;
  if (!TARGETS.includes(target)) throw new CliUsageError(`${what} must be one of ${TARGETS.join(', ')} (got "${t}")`);
  return target;
}

function verdictLine(r: PolicyResult & { latency_ms: number }, extra: Record<string, unknown>): string {
  return JSON.stringify({
    ...extra,
    verdict: r.verdict,
    flagged: r.flagged,
    risk_score: r.risk_score,
    threats: r.threats.map(({ threat_id: _id, ...t }) => t),
    ...(r.error ? { error: r.error } : {}),
    latency_ms: r.latency_ms,
  });
}

/** Reads JSONL rows; calls `row` for good ones and `bad` for lines that are not {"text": string}. */
export async function readJsonl(
  path: string,
  row: (value: Record<string, unknown>, line: number) => void | Promise<void>,
  bad: (line: number, message: string) => void,
): Promise<void> {
  // A .gz file (e.g. data/corpus/corpus.jsonl.gz) is read through gunzip.
  const file = createReadStream(path);
  const input = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  file.on('error', (err) => input.destroy(err));
  input.setEncoding('utf8');
  const rl = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  for await (const raw of rl) {
    line++;
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      bad(line, `not JSON: ${(err as Error).message}`);
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      bad(line, 'each line must be a JSON object');
      continue;
    }
    if (typeof (value as { text?: unknown }).text !== 'string') {
      bad(line, 'missing "text" (a string)');
      continue;
    }
    await row(value as Record<string, unknown>, line);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Checks the target and builds the offline scanner; on failure prints why and gives the exit code (2 usage, 1 other). */
export async function openScanner(command: string, o: ScanCliOptions, io: CliIO): Promise<{ scanner: OfflineScanner; target: Target } | number> {
  try {
    const target = checkTarget(o.target);
    return { scanner: await createOfflineScanner(scannerOptions(o)), target };
  } catch (err) {
    io.err(`warden ${command}: ${(err as Error).message}`);
    return err instanceof CliUsageError ? 2 : 1;
  }
}

export async function runScan(text: string | undefined, o: ScanCliOptions, io: CliIO = stdio): Promise<number> {
  const opened = await openScanner('scan', o, io);
  if (typeof opened === 'number') return opened;
  const { scanner, target } = opened;
  if (text !== undefined && o.file !== undefined) {
    io.err('warden scan: give either TEXT or --file, not both');
    return 2;
  }
  if (o.file !== undefined) {
    let bad = 0;
    try {
      await readJsonl(
        o.file,
        async (row, line) => {
          let rowTarget = target;
          if (row.target !== undefined) {
            try {
              rowTarget = checkTarget(row.target as string, '"target"');
            } catch (err) {
              bad++;
              io.out(JSON.stringify({ line, ...(row.id !== undefined ? { id: row.id } : {}), error: (err as Error).message }));
              return;
            }
          }
          io.out(verdictLine(await scanner.scanAsync(row.text as string, rowTarget), { line, ...(row.id !== undefined ? { id: row.id } : {}) }));
        },
        (line, message) => {
          bad++;
          io.out(JSON.stringify({ line, error: message }));
        },
      );
    } catch (err) {
      io.err(`warden scan: cannot read ${o.file}: ${(err as Error).message}`);
      return 1;
    }
    if (bad > 0) io.err(`warden scan: ${bad} bad row(s) in ${o.file}`);
    return bad > 0 ? 1 : 0;
  }
  const input = text ?? (process.stdin.isTTY ? undefined : await readStdin());
  if (input === undefined) {
    io.err('warden scan: give TEXT, --file rows.jsonl, or pipe text on stdin');
    return 2;
  }
  io.out(verdictLine(await scanner.scanAsync(input, target), {}));
  return 0;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function addScannerOptions(cmd: Command): Command {
  return cmd
    .option('--config <file>', 'warden.yaml to take scanning.* and security.* from (default: WARDEN_CONFIG)')
    .option('--target <target>', `what the text is: ${TARGETS.join(' | ')}`, 'prompt')
    .option('--rules <dir>', 'rules directory (default: the bundled rules/)')
    .option('--plugin-dir <dir>', 'extra plugin directory (repeatable)', collect)
    .option('--enable <names>', 'comma-separated plugins to run (default: all)')
    .option('--mode <mode>', 'enforce | monitor', undefined)
    .option('--block-severity <severity>', `lowest severity that blocks: ${SEVERITIES.join(' | ')}`);
}

export function register(program: Command): void {
  addJobOptions(addScannerOptions(
    program
      .command('scan')
      .description('Scan text offline (argument, stdin, or --file rows.jsonl) and print JSONL verdicts')
      .argument('[text]', 'text to scan; omit to read stdin')
      .option('--file <rows.jsonl>', 'JSONL file of {"text": ...} rows'),
  )).action(async (text: string | undefined, o: ScanCliOptions & ScanJobOptions) => {
    // --job runs on a server instead (scan-job.ts).
    if (o.job) return void (process.exitCode = await runScanJob(o));
    process.exitCode = await runScan(text, o);
  });
}
