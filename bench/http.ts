import autocannon from 'autocannon';
import { spawnWarden, type WardenProcess } from '../test/support/warden.js';

const KEY = 'svc_bench_admin_key_0123456789abcdefghij';

export interface LoadResult {
  label: string;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon against one URL and returns throughput and latency percentiles (ms). */
export async function load(label: string, url: string, opts: { headers?: Record<string, string>; method?: 'GET' | 'POST'; body?: string; connections?: number; duration?: number; overallRate?: number } = {}): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: opts.method ?? 'GET',
    headers: opts.headers,
    body: opts.body,
    connections: opts.connections ?? 32,
    duration: opts.duration ?? 5,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
  });
  return {
    label,
    rps: result.requests.average,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

export function printTable(title: string, rows: LoadResult[], baseline?: LoadResult): void {
  console.log(`\n## ${title}`);
  console.log('| case | req/s | p50 ms | p90 ms | p99 ms | errors | non-2xx | vs baseline |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const ratio = baseline ? `${(r.rps / baseline.rps).toFixed(2)}x` : '';
    console.log(`| ${r.label} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p90} | ${r.p99} | ${r.errors} | ${r.non2xx} | ${ratio} |`);
  }
}

/**
 * The HTTP baseline later overhead is measured against: /health (no stages past routing) and an
 * authenticated, rate-limited request (GET /v1/auth/whoami with an API key) on memory and on
 * Redis backends. Warden runs in its own process; the load generator here.
 */
export async function run(): Promise<void> {
  const rows: LoadResult[] = [];
  for (const backend of ['memory', 'redis'] as const) {
    const cfg = {
      security: { rate_limit: 1_000_000 },
      ...(backend === 'redis' ? { redis: { url: 'redis://127.0.0.1:6379', key_prefix: `warden-bench-${process.pid}:` } } : {}),
    };
    const w: WardenProcess = await spawnWarden(cfg, { WARDEN_BOOTSTRAP_KEY: KEY, WARDEN_LOG_LEVEL: 'info' });
    try {
      await load('warm-up', `${w.url}/health`, { duration: 1 });
      if (backend === 'memory') rows.push(await load('GET /health (no auth)', `${w.url}/health`));
      rows.push(await load(`GET /v1/auth/whoami, API key + rate limit (${backend})`, `${w.url}/v1/auth/whoami`, { headers: { 'X-API-Key': KEY } }));
    } finally {
      await w.stop();
    }
  }
  printTable('HTTP baseline (32 connections, 5 s each)', rows, rows[0]);
}
