/**
 * Measure detector content on a labelled JSONL file without the engine.
 *   node dist/scripts/detectors/eval-dev.js FILE.jsonl [--target prompt|rag] [--misses CATEGORY] [--fps] [--only RULE_PREFIX]
 * Prints recall per category, false-positive rate, a per-source table and, on request, the
 * rows a category missed or the benign rows flagged (with the rule that fired).
 */
import { readFileSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HarnessMatcher, loadPlugins, loadRules, scanWith } from './content-harness.js';
import type { Target } from '../../src/scanning/types.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../../..');
const args = process.argv.slice(2);
const file = args[0];
if (!file) { console.error('usage: eval-dev FILE.jsonl [--target T] [--misses CAT] [--fps] [--tests]'); process.exit(2); }
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const target = (opt('--target') ?? 'prompt') as Target;
const matcher = new HarnessMatcher(loadRules(resolve(repo, 'rules')));
const failures = matcher.selfTest();
for (const f of failures) console.log('RULE TEST FAIL', f);
// --cv-scores FILE --cv-threshold X: use the classifier's HELD-OUT scores (from
// train-classifier --dump-cv) instead of the shipped model, which has seen every row.
const cvScoresFile = opt('--cv-scores');
const cvScores = cvScoresFile ? (JSON.parse(readFileSync(cvScoresFile, 'utf8')) as number[]) : undefined;
const cvThreshold = Number(opt('--cv-threshold') ?? '0');
const skip = (opt('--skip') ?? '').split(',').concat(cvScores ? ['classifier'] : []);
const plugins = (await loadPlugins(resolve(repo, 'dist/plugins'))).filter((p) => !skip.includes(p.meta.name));

interface Row { text: string; label: number; category?: string; source?: string }
const rows = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
const byCat = new Map<string, [number, number]>();
const bySrc = new Map<string, [number, number]>();
const ruleCounts = new Map<string, [number, number]>();
const showMiss = opt('--misses');
const t0 = performance.now();
let bytes = 0;
for (const [i, row] of rows.entries()) {
  bytes += row.text.length;
  const findings = scanWith(row.text, target, matcher, plugins);
  if (cvScores && cvScores[i]! >= cvThreshold) findings.push({ attackType: 'prompt_injection', severity: 'medium', confidence: 0.5, ruleId: 'classifier.held-out', message: '', spans: [] });
  const hit = findings.length > 0;
  const cat = row.category ?? (row.label ? 'attack' : 'benign');
  const c = byCat.get(cat) ?? [0, 0]; c[0] += hit ? 1 : 0; c[1]++; byCat.set(cat, c);
  const sk = `${cat} ${row.source ?? '-'}`;
  const s = bySrc.get(sk) ?? [0, 0]; s[0] += hit ? 1 : 0; s[1]++; bySrc.set(sk, s);
  for (const id of new Set(findings.map((f) => f.ruleId))) { const r = ruleCounts.get(id) ?? [0, 0]; r[row.label ? 0 : 1]++; ruleCounts.set(id, r); }
  if (showMiss && cat === showMiss && !hit) console.log('MISS', JSON.stringify(row.text.slice(0, Number(opt('--width') ?? 300))));
  if (args.includes('--fps') && row.label === 0 && hit) console.log('FP', findings.map((f) => f.ruleId).join(','), JSON.stringify(row.text.slice(0, 300)));
}
const ms = performance.now() - t0;
console.log(`\nrule tests: ${failures.length} failing; plugins: ${plugins.map((p) => p.meta.name).join(', ')}; target=${target}; ${(bytes / 1e6 / (ms / 1000)).toFixed(1)} MB/s`);
for (const [cat, [h, n]] of [...byCat].sort()) console.log(`${cat.padEnd(10)} ${cat === 'benign' ? 'flagged' : 'recall '} ${(100 * h / n).toFixed(1).padStart(5)}%  (${h}/${n})`);
if (args.includes('--sources')) for (const [k, [h, n]] of [...bySrc].sort()) console.log(`  ${(100 * h / n).toFixed(0).padStart(4)}% ${String(n).padStart(4)}  ${k.slice(0, 150)}`);
if (args.includes('--rules')) for (const [id, [tp, fp]] of [...ruleCounts].sort()) console.log(`  ${id.padEnd(60)} attacks ${String(tp).padStart(4)}  benign ${fp}`);
