/**
 * Time of each rule prefilter set (RE2.Set) over the texts of a JSONL file, with the first and
 * last pattern it holds: the direct view of the DFA cliff (docs/detectors.md "Rules cost").
 * Sets are filled in rule-file order, so adding a pattern moves every later boundary; a set
 * that takes ten times the others' time has fallen off the cliff even when the whole-pass
 * figure of rules-throughput hides it in noise. Compare two rule directories run by run.
 *   node dist/scripts/detectors/prefilter-sets.js [RULES_DIR] [--target prompt|rag] [--file FILE.jsonl] [--runs N]
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
const rules = loadRuleSet(dir).rules.filter((r) => r.enabled !== false && (r.targets as string[]).includes(target));
const sources: string[] = [];
const names: string[] = [];
for (const r of rules) r.patterns.forEach((p, i) => { sources.push(prefilterForm(p)); names.push(`${r.id}#${i}`); });
const pf = buildPrefilterSets(sources);
const texts = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => Buffer.from((JSON.parse(l) as { text: string }).text));
pf.sets.forEach((set, k) => {
  let best = Infinity;
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    for (const t of texts) set.match(t);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  const held = pf.order.slice(pf.bases[k], pf.bases[k]! + set.size);
  console.log(`set ${k}: ${String(set.size).padStart(3)} patterns, ${best.toFixed(1).padStart(6)} ms  ${names[held[0]!] ?? '(triage)'} .. ${names[held[held.length - 1]!] ?? '(triage)'}`);
});
