/**
 * Throughput of the rule set alone (no plugins) over the texts of a JSONL file: the check to run
 * after editing rules/. Patterns go into RE2.Set prefilters whose DFA has a cliff (see
 * src/scanning/rules/prefilter.ts): one pattern with a long gap (`[^\n]{0,100}`) or many
 * `(\w+\s+){0,3}` fillers can make a whole set 2-3x slower, and which patterns share a set
 * changes with every rule added. Compare against the previous rule set with --rules-dir.
 *   node dist/scripts/detectors/rules-throughput.js [FILE.jsonl] [--rules-dir DIR] [--runs N] [--target T]
 */
import { readFileSync, existsSync } from 'node:fs';
import { createOfflineScanner } from '../../src/scanning/offline.js';
import type { Target } from '../../src/scanning/types.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const file = args[0] && !args[0].startsWith('--') ? args[0] : '/work/shared/data/injection-dev.jsonl';
const runs = Number(opt('--runs') ?? '5');
const target = (opt('--target') ?? 'prompt') as Target;
const rulesDir = opt('--rules-dir');
if (!existsSync(file)) { console.error(`no such file: ${file}`); process.exit(2); }
if (!Number.isInteger(runs) || runs < 1 || runs > 50) { console.error('--runs must be an integer from 1 to 50'); process.exit(2); }
if (rulesDir !== undefined && !existsSync(rulesDir)) { console.error(`no such rules directory: ${rulesDir}`); process.exit(2); }

const texts = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { text: string }).text);
const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
// The rules plugin only: with no plugin at all the engine would run the normaliser (and the
// rule prefilter over the original text, through its triage) but never confirm a rule.
const scanner = await createOfflineScanner({ enabledPlugins: ['rules'], ...(rulesDir ? { rulesDir } : {}) });
let best = Infinity;
for (let r = 0; r < runs; r++) {
  const t0 = process.hrtime.bigint();
  for (const t of texts) scanner.scan(t, target);
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
}
console.log(`${rulesDir ?? 'rules/'}: ${texts.length} texts, ${(bytes / 1e6).toFixed(2)} MB, best of ${runs}: ${best.toFixed(0)} ms = ${(bytes / 1e6 / (best / 1000)).toFixed(1)} MB/s (rules only, target ${target})`);
