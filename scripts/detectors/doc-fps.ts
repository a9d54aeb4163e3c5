/**
 * False flags on technical documentation: every markdown file under DIR (default node_modules)
 * cut into 1 500-character chunks, scanned by the real engine with every detector except the
 * classifier (whose documentation figures come from train-classifier --extra-benign). Docs are
 * full of "ignore", "override", "system", "token", "password": a rule that fires here will fire
 * on developers' ordinary prompts.
 *   node dist/scripts/detectors/doc-fps.js [DIR] [--max N] [--target prompt|rag] [--show]
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createOfflineScanner } from '../../src/scanning/offline.js';
import { BUILTIN_PLUGIN_DIR } from '../../src/scanning/engine.js';
import type { Target } from '../../src/scanning/types.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const dir = args[0] && !args[0].startsWith('--') ? args[0] : 'node_modules';
const max = Number(opt('--max') ?? '100000');
const target = (opt('--target') ?? 'prompt') as Target;
if (!Number.isInteger(max) || max <= 0) { console.error('--max must be a positive integer'); process.exit(2); }
if (!existsSync(dir)) { console.error(`no such directory: ${dir}`); process.exit(2); }

const files: string[] = [];
const walk = (d: string): void => {
  for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.md')) files.push(p);
  }
};
walk(dir);
const plugins = readdirSync(BUILTIN_PLUGIN_DIR).filter((n) => n !== 'classifier' && existsSync(join(BUILTIN_PLUGIN_DIR, n, 'index.js')));
const scanner = await createOfflineScanner({ enabledPlugins: plugins });
let chunks = 0;
let flagged = 0;
const byRule = new Map<string, number>();
for (const f of files) {
  const text = readFileSync(f, 'utf8');
  for (let i = 0; i < text.length && chunks < max; i += 1500) {
    const chunk = text.slice(i, i + 1500);
    chunks++;
    const r = scanner.scan(chunk, target);
    if (r.verdict === 'allow') continue;
    flagged++;
    for (const t of r.threats) byRule.set(t.rule_id, (byRule.get(t.rule_id) ?? 0) + 1);
    if (args.includes('--show')) console.log('FP', f, r.threats.map((t) => t.rule_id).join(','), JSON.stringify(chunk.slice(Math.max(0, (r.threats[0]?.spans?.[0]?.start ?? 0) - 100), (r.threats[0]?.spans?.[0]?.end ?? 0) + 100)));
  }
}
console.log(`${files.length} files, ${chunks} chunks, ${flagged} flagged (${(100 * flagged / Math.max(1, chunks)).toFixed(2)} %), target=${target}`);
for (const [k, n] of [...byRule].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(4)} ${k}`);
