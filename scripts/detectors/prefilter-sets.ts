/**
 * Time of each rule prefilter set (RE2.Set) over the texts of a JSONL file, with the first and
 * last pattern it holds: the direct view of the DFA cliff (docs/lab/detectors-notebook.md "Rules cost").
 * Sets are filled in rule-file order, so adding a pattern moves every later boundary; a set
 * that takes ten times the others' time has fallen off the cliff even when the whole-pass
 * figure of rules-throughput hides it in noise. Compare two rule directories run by run, or
 * with --ab DIR: both directories' sets in one process, passes alternating (a loaded machine
 * slows both alike), then each set's best time and the sum of all sets per directory.
 *   node dist/scripts/detectors/prefilter-sets.js [RULES_DIR] [--target prompt|rag] [--file FILE.jsonl] [--runs N] [--ab DIR]
 */
import { readFileSync } from 'node:fs';
import RE2 from 're2';
import { loadRuleSet } from '../../src/scanning/rules/load.js';
import { buildPrefilterSets, prefilterForm } from '../../src/scanning/rules/prefilter.js';

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined; };
const dir = args[0] && !args[0].startsWith('--') ? args[0] : 'rules';
const target = opt('--target') ?? 'prompt';
const file = opt('--file') ?? '/work/shared/data/injection-dev.jsonl';
const runs = Number(opt('--runs') ?? '3');
const abDir = opt('--ab');
const texts = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => Buffer.from((JSON.parse(l) as { text: string }).text));

interface Layout { dir: string; sets: InstanceType<typeof RE2.Set>[]; labels: string[]; best: number[] }
function layout(d: string): Layout {
  const rules = loadRuleSet(d).rules.filter((r) => r.enabled !== false && (r.targets as string[]).includes(target));
  const sources: string[] = [];
  const names: string[] = [];
  for (const r of rules) r.patterns.forEach((p, i) => { sources.push(prefilterForm(p)); names.push(`${r.id}#${i}`); });
  const pf = buildPrefilterSets(sources);
  const labels = pf.sets.map((set, k) => {
    const held = pf.order.slice(pf.bases[k], pf.bases[k]! + set.size);
    return `${String(set.size).padStart(3)} patterns  ${names[held[0]!] ?? '(triage)'} .. ${names[held[held.length - 1]!] ?? '(triage)'}`;
  });
  return { dir: d, sets: pf.sets, labels, best: pf.sets.map(() => Infinity) };
}
const layouts = (abDir ? [abDir, dir] : [dir]).map(layout);
for (let r = 0; r < runs; r++) {
  for (const l of layouts) {
    l.sets.forEach((set, k) => {
      const t0 = process.hrtime.bigint();
      for (const t of texts) set.match(t);
      l.best[k] = Math.min(l.best[k]!, Number(process.hrtime.bigint() - t0) / 1e6);
    });
  }
}
for (const l of layouts) {
  if (layouts.length > 1) console.log(`${l.dir}:`);
  l.sets.forEach((_, k) => console.log(`set ${k}: ${l.labels[k]!.replace('patterns', `patterns, ${l.best[k]!.toFixed(1).padStart(6)} ms`)}`));
  if (layouts.length > 1) {
    const sum = l.best.reduce((a, b) => a + b, 0);
    console.log(`  all sets ${sum.toFixed(1)} ms, slowest/fastest set ${(Math.max(...l.best) / Math.min(...l.best)).toFixed(2)}x`);
  }
}
