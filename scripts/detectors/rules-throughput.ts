/**
 * Throughput of the rule set alone (no plugins) over the texts of a JSONL file: the check to run
 * after editing rules/. Patterns go into RE2.Set prefilters whose DFA has a cliff (see
 * src/scanning/rules/prefilter.ts): one pattern with a long gap (`[^\n]{0,100}`) or many
 * `(\w+\s+){0,3}` fillers can make a whole set 2-3x slower, and which patterns share a set
 * changes with every rule added. Compare against the previous rule set with --rules-dir, or
 * better with --ab DIR: both rule sets in one process, passes alternating, so a loaded machine
 * slows both alike; the ratio of their best CPU times is the figure to report.
 * A set that falls off the cliff is split at run time (compile.ts), which a best-of-N time can hide:
 * the split count is printed too and must stay 0.
 *   node dist/scripts/detectors/rules-throughput.js [FILE.jsonl] [--rules-dir DIR] [--ab DIR] [--runs N] [--target T]
 */
import { readFileSync, existsSync } from 'node:fs';
import { createOfflineScanner } from '../../src/scanning/offline.js';
import type { OfflineScanner } from '../../src/scanning/offline.js';
import type { Target } from '../../src/scanning/types.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const file = args[0] && !args[0].startsWith('--') ? args[0] : '/work/shared/data/injection-dev.jsonl';
const runs = Number(opt('--runs') ?? '5');
const target = (opt('--target') ?? 'prompt') as Target;
const rulesDir = opt('--rules-dir');
const abDir = opt('--ab');
if (!existsSync(file)) { console.error(`no such file: ${file}`); process.exit(2); }
if (!Number.isInteger(runs) || runs < 1 || runs > 50) { console.error('--runs must be an integer from 1 to 50'); process.exit(2); }
for (const d of [rulesDir, abDir]) if (d !== undefined && !existsSync(d)) { console.error(`no such rules directory: ${d}`); process.exit(2); }

const texts = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { text: string }).text);
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
// The rules plugin only: with no plugin at all the engine would run the normaliser (and the
// rule prefilter over the original text, through its triage) but never confirm a rule.
const variants: { name: string; scanner: OfflineScanner; wall: number; cpu: number }[] = [];
for (const dir of abDir ? [abDir, rulesDir] : [rulesDir]) {
  variants.push({ name: dir ?? 'rules/', scanner: await createOfflineScanner({ enabledPlugins: ['rules'], ...(dir ? { rulesDir: dir } : {}) }), wall: Infinity, cpu: Infinity });
}
for (let r = 0; r < runs; r++) {
  for (const v of variants) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    for (const t of texts) v.scanner.scan(t, target);
    v.wall = Math.min(v.wall, Number(process.hrtime.bigint() - t0) / 1e6);
    const c = process.cpuUsage(c0);
    v.cpu = Math.min(v.cpu, (c.user + c.system) / 1000);
  }
}
const mb = bytes / 1e6;
for (const v of variants) {
  console.log(`${v.name}: ${texts.length} texts, ${mb.toFixed(2)} MB, best of ${runs}: ${v.wall.toFixed(0)} ms = ${(mb / (v.wall / 1000)).toFixed(1)} MB/s wall, ${v.cpu.toFixed(0)} ms = ${(mb / (v.cpu / 1000)).toFixed(1)} MB/cpu-s (rules only, target ${target}); prefilter sets split at run time (DFA cliff): ${v.scanner.engine.rules.prefilterSplits}`);
}
if (variants.length === 2) console.log(`ratio ${variants[1]!.name} / ${variants[0]!.name}: wall ${(variants[0]!.wall / variants[1]!.wall).toFixed(3)}x, cpu ${(variants[0]!.cpu / variants[1]!.cpu).toFixed(3)}x throughput`);
