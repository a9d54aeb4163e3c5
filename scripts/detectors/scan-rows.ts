/**
 * Every row of a labelled JSONL file through the whole shipped pipeline (rules and every plugin,
 * the shipped classifier included), one line per row: hit or miss, what fired, the text's start.
 * Used for probe sets: scan a new set once before tuning anything and record the figure.
 *   node dist/scripts/detectors/scan-rows.js FILE.jsonl [--target prompt|rag] [--rules-dir DIR] [--only hits|misses|wrong]
 * "wrong" = attacks missed and benign rows flagged.
 */
import { readFileSync } from 'node:fs';
import { createOfflineScanner } from '../../src/scanning/offline.js';
import type { Target } from '../../src/scanning/types.js';

const [file, ...rest] = process.argv.slice(2);
if (!file) { console.error('usage: scan-rows FILE.jsonl [--target T] [--rules-dir DIR] [--only hits|misses|wrong]'); process.exit(2); }
const opt = (name: string): string | undefined => { const i = rest.indexOf(name); return i >= 0 ? rest[i + 1] : undefined; };
const target = (opt('--target') ?? 'prompt') as Target;
const only = opt('--only');
const rulesDir = opt('--rules-dir');
const scanner = await createOfflineScanner(rulesDir ? { rulesDir } : {});
interface Row { text: string; label: number; category?: string }
const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
const tally = new Map<string, [number, number]>();
for (const row of rows) {
  const r = scanner.scan(row.text, target);
  const hit = r.verdict !== 'allow';
  const cat = row.category ?? (row.label ? 'attack' : 'benign');
  const t = tally.get(cat) ?? [0, 0]; t[0] += hit ? 1 : 0; t[1]++; tally.set(cat, t);
  const wrong = row.label === 1 ? !hit : hit;
  if (only === 'hits' && !hit) continue;
  if (only === 'misses' && hit) continue;
  if (only === 'wrong' && !wrong) continue;
  console.log(`${hit ? 'HIT ' : 'miss'} ${cat.padEnd(9)} ${[...new Set(r.threats.map((x) => x.rule_id))].join(',') || '-'}  ${JSON.stringify(row.text.slice(0, 110))}`);
}
for (const [cat, [h, n]] of [...tally].sort()) console.log(`${cat.padEnd(10)} ${h}/${n} flagged`);
