import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { loadConfig } from '../src/config/load.js';
import { startServer, type RunningServer } from '../src/server.js';
import { PROJECT_ROOT } from '../src/version.js';

export const HS_SECRET = 'test-secret-that-is-at-least-32-bytes-long!!';
export const CLI = join(PROJECT_ROOT, 'dist', 'src', 'cli', 'warden.js');

export interface InProcessWarden {
  server: RunningServer;
  url: string;
  adminKey: string;
  close(): Promise<void>;
}

/**
 * Tests run on the memory store unless they ask for another: the default (SQLite in
 * ./var/warden.db) would share one file between tests, and one file admits one server.
 */
export function withTestStorage(raw: Record<string, unknown>): Record<string, unknown> {
  const redisUrl = (raw.redis as { url?: string } | undefined)?.url;
  const backend = (raw.storage as { backend?: string } | undefined)?.backend;
  return redisUrl || backend ? raw : deepMerge(raw, { storage: { backend: 'memory' } });
}

/** A Warden in this process on a free port, with a known admin key. */
export async function startWarden(raw: Record<string, unknown> = {}): Promise<InProcessWarden> {
  const adminKey = `svc_test_admin_${Math.random().toString(36).slice(2)}_0123456789`;
  const merged = deepMerge({ server: { port: 0 }, auth: { jwt: { secret: HS_SECRET }, bootstrap_key: adminKey } }, withTestStorage(raw));
  const { config } = loadConfig({ raw: merged, env: {} });
  const server = await startServer({ config, configPath: null, announce: () => undefined });
  return { server, url: server.url, adminKey, close: () => server.close() };
}

export interface WardenProcess {
  url: string;
  proc: ChildProcess;
  stdout: string[];
  stderr: string[];
  configPath: string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Writes a warden.yaml and runs `warden serve --config` in a child process; resolves once it listens. */
export async function spawnWarden(raw: Record<string, unknown>, env: Record<string, string> = {}, timeoutMs = 20_000): Promise<WardenProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'warden-'));
  const configPath = join(dir, 'warden.yaml');
  writeFileSync(configPath, stringify(deepMerge({ server: { port: 0 } }, withTestStorage(raw))));
  const proc = spawn(process.execPath, [CLI, 'serve', '--config', configPath], {
    env: { PATH: process.env.PATH, WARDEN_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL'); // never leave a half-started server behind
      reject(new Error(`warden did not start in ${timeoutMs} ms:\n${stderr.join('')}`));
    }, timeoutMs);
    proc.stdout!.on('data', (d: Buffer) => stdout.push(d.toString()));
    proc.stderr!.on('data', (d: Buffer) => {
      const text = d.toString();
      stderr.push(text);
      const m = /"url":"([^"]+)".*"msg":"warden ready"/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      rmSync(dir, { recursive: true, force: true });
      reject(new Error(`warden exited with ${code}:\n${stderr.join('')}`));
    });
  });
  return {
    url,
    proc,
    stdout,
    stderr,
    configPath,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        // The config directory goes with the process (tests run dozens of these).
        const done = (code: number | null): void => {
          rmSync(dir, { recursive: true, force: true });
          resolve(code);
        };
        if (proc.exitCode !== null || proc.signalCode !== null) return done(proc.exitCode);
        proc.once('exit', (code) => done(code));
        proc.kill(signal);
      }),
  };
}

/** Runs the CLI to completion. */
export function runCli(args: string[], opts: { env?: Record<string, string>; input?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, WARDEN_LOG_LEVEL: 'warn', ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdin.end(opts.input ?? '');
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

export function deepMerge(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const prev = out[k];
    out[k] = v && typeof v === 'object' && !Array.isArray(v) && prev && typeof prev === 'object' && !Array.isArray(prev) ? deepMerge(prev as Record<string, unknown>, v as Record<string, unknown>) : v;
  }
  return out;
}
