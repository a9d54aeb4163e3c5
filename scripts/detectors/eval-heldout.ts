/**
 * Held-out estimate of the whole detector set on a labelled JSONL file, through the REAL engine
 * (normaliser, compiled rules, every plugin) except the classifier, whose verdict comes from the
 * cross-validation scores train-classifier wrote (--dump-cv): each row is judged by a model that
 * never saw it. This is the honest counterpart of `warden eval`, whose shipped classifier was
 * trained on every row of the development set.
 *   node dist/scripts/detectors/eval-heldout.js FILE.jsonl CV_SCORES.json THRESHOLD THRESHOLD_LONG [--target prompt|rag] [--sources] [--fps] [--misses CAT] [--rules] [--rules-dir DIR] [--plugin-config JSON]
 *   --plugin-config: scanning.plugins-style settings, e.g. '{"adversarial-suffix":{"min_score":5.5}}', to
 *   measure a plugin threshold held out before changing its default.
 *   --rules: per rule, hits by category and the number of distinct sources it fires on (a rule
 *   firing on one source only is probably fitted to that source).
 */
import { readFileSync } from 'node:fs';
import { createOfflineScanner } from '../../src/scanning/offline.js';
import { BUILTIN_PLUGIN_DIR } from '../../src/scanning/engine.js';
import type { Target } from '../../src/scanning/types.js';
import { readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [file, scoresFile, thr, thrLong, ...rest] = process.argv.slice(2);
if (!file || !scoresFile || thr === undefined || thrLong === undefined) { console.error('usage: eval-heldout FILE.jsonl CV_SCORES.json THRESHOLD THRESHOLD_LONG [--target T] [--sources] [--fps] [--misses CAT]'); process.exit(2); }
const opt = (name: string): string | undefined => { const i = rest.indexOf(name); return i >= 0 ? rest[i + 1] : undefined; };
const target = (opt('--target') ?? 'prompt') as Target;
const threshold = Number(thr);
const thresholdLong = Number(thrLong);
// Same length classes as the plugin (model.json chunk_chars x window_chunks).
const model = JSON.parse(readFileSync(new URL('../../../plugins/classifier/model.json', import.meta.url), 'utf8')) as { chunk_chars: number; window_chunks: number };
const longAt = model.chunk_chars * model.window_chunks;
const scores = JSON.parse(readFileSync(scoresFile, 'utf8')) as number[];
const plugins = readdirSync(BUILTIN_PLUGIN_DIR).filter((n) => n !== 'classifier' && existsSync(join(BUILTIN_PLUGIN_DIR, n, 'index.js')));
const rulesDir = opt('--rules-dir');
const pluginConfig = opt('--plugin-config');
const scanner = await createOfflineScanner({ enabledPlugins: plugins, ...(rulesDir ? { rulesDir } : {}), ...(pluginConfig ? { pluginConfig: JSON.parse(pluginConfig) as Record<string, Record<string, unknown>> } : {}) });

interface Row { text: string; label: number; category?: string; source?: string }
const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
if (rows.length !== scores.length) throw new Error(`${rows.length} rows but ${scores.length} scores`);
const byCat = new Map<string, number[]>();
const bySrc = new Map<string, number[]>();
const add = (m: Map<string, number[]>, k: string, hit: boolean, byClassifierOnly: boolean): void => {
  const v = m.get(k) ?? [0, 0, 0]; v[0]! += hit ? 1 : 0; v[1]!++; v[2]! += byClassifierOnly ? 1 : 0; m.set(k, v);
};
const byRule = new Map<string, { cats: Map<string, number>; sources: Set<string> }>();
rows.forEach((row, i) => {
  const r = scanner.scan(row.text, target);
  const byRules = r.verdict !== 'allow';
  const byClassifier = scores[i]! >= (row.text.length > longAt ? thresholdLong : threshold);
  const hit = byRules || byClassifier;
  const cat = row.category ?? (row.label ? 'attack' : 'benign');
  add(byCat, cat, hit, byClassifier && !byRules);
  add(bySrc, `${cat.padEnd(9)} ${row.source ?? '-'}`, hit, byClassifier && !byRules);
  if (rest.includes('--rules')) for (const id of new Set(r.threats.map((t) => t.rule_id))) {
    const e = byRule.get(id) ?? { cats: new Map<string, number>(), sources: new Set<string>() };
    e.cats.set(cat, (e.cats.get(cat) ?? 0) + 1);
    if (row.label === 1) e.sources.add(row.source ?? '-');
    byRule.set(id, e);
  }
  if (rest.includes('--fps') && row.label === 0 && hit) console.log('FP', byRules ? r.threats.map((t) => t.rule_id).join(',') : 'classifier', JSON.stringify(row.text.slice(0, 200)));
  if (opt('--misses') === cat && !hit) console.log('MISS', JSON.stringify(row.text.slice(0, 240)));
});
console.log(`held-out estimate, target=${target}, classifier thresholds ${threshold} / ${thresholdLong} (long)`);
for (const [k, [h, n, c]] of [...byCat].sort()) console.log(`${k.padEnd(10)} ${k === 'benign' ? 'flagged' : 'recall '} ${(100 * h! / n!).toFixed(1).padStart(5)}%  (${h}/${n}; classifier alone added ${c})`);
if (rest.includes('--sources')) for (const [k, [h, n]] of [...bySrc].sort()) console.log(`  ${(100 * h! / n!).toFixed(0).padStart(4)}% ${String(n).padStart(4)}  ${k.slice(0, 140)}`);
if (rest.includes('--rules')) for (const [id, e] of [...byRule].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
  console.log(`  ${id.padEnd(46)} ${[...e.cats].sort().map(([c, n]) => `${c} ${n}`).join(', ')}; attack sources ${e.sources.size}`);
}
