/**
 * Builds the training corpus (data/corpus/corpus.jsonl.gz) from pinned public snapshots
 * (scripts/data/sources.json), the shared dev rows, the hand-written lexicons in
 * scripts/data/lexicon/ and the hand-written rows in data/handwritten/ (handwritten.ts). Deterministic: the same snapshots and seed give the same file.
 *
 *   node dist/scripts/data/build-corpus.js --mirror /work/.mirror --out data/corpus/corpus.jsonl.gz
 *     [--sources scripts/data/sources.json] [--dev ../shared/data/injection-dev.jsonl] [--handwritten data/handwritten]
 *     [--seed 20251125] [--scale 1] [--stats data/corpus/stats.json] [--relabel-log FILE.tsv] [--code-switch 0]
 *
 * Row format: scripts/data/README.md (the contract in the corpus schema note). What it does:
 * source rows (relabelled where a file's category is not a label) + generated rows (indirect
 * injections in documents, jailbreak wrappers, direct injections, hard negatives, clean
 * documents) -> exact dedupe + near-duplicate collapse (dedupe.ts) -> seeded shuffle -> gzip JSONL.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { mulberry32 } from '../../src/util/prng.js';
import { loadMaterial } from './material.js';
import { generateIndirect, generateCleanDocuments, generateJailbreaks, generateDirect, generateHardNegatives, generateUserRequests, generateFragments, materialUse } from './generate.js';
import { dedupe } from './dedupe.js';
import { loadHandwritten } from './handwritten.js';
import type { CorpusRow } from './row.js';
import { countBy, crossTab } from './stats.js';
import { assertValid } from './validate.js';
import { codeSwitch } from './codeswitch.js';

function arg(name: string, dflt?: string): string {
  const i = process.argv.indexOf('--' + name);
  if (i >= 0 && i + 1 < process.argv.length) return process.argv[i + 1];
  if (dflt === undefined) { console.error(`build-corpus: --${name} is required (see the header of scripts/data/build-corpus.ts)`); process.exit(2); }
  return dflt;
}

if (process.argv.includes('--help')) {
  console.log('build-corpus --mirror DIR --out FILE.jsonl.gz [--sources FILE] [--dev FILE] [--handwritten DIR] [--seed N] [--scale X] [--stats FILE] [--relabel-log FILE] [--code-switch SHARE]');
  process.exit(0);
}
const mirror = arg('mirror');
const out = resolve(arg('out'));
const sources = arg('sources', 'scripts/data/sources.json');
const dev = arg('dev', '../shared/data/injection-dev.jsonl');
const handwrittenDir = arg('handwritten', 'data/handwritten');
const seed = Number(arg('seed', '20251125'));
const scale = Number(arg('scale', '1'));
const statsFile = arg('stats', '');
const relabelLog = arg('relabel-log', '');
// Share of rows with concept words that also get a code-switched copy (codeswitch.ts); 0 = off (the shipped corpus).
const codeSwitchShare = Number(arg('code-switch', '0'));
if (!Number.isFinite(seed) || !(scale > 0)) { console.error('build-corpus: --seed must be a number and --scale > 0'); process.exit(2); }
if (!(codeSwitchShare >= 0 && codeSwitchShare <= 1)) { console.error(`build-corpus: --code-switch must be a share between 0 and 1, got ${JSON.stringify(arg('code-switch', '0'))}`); process.exit(2); }

// A missing snapshot, an unpinned commit or a corpus that fails its contract ends the run with one line saying which.
process.on('uncaughtException', (e) => { console.error(`build-corpus: ${e.message}`); process.exit(1); });

const t0 = Date.now();
const M = loadMaterial(mirror, sources, dev);
console.log(`material: ${M.rows.length} source rows, ${M.harmful.length} harmful requests, ${M.paragraphs.length} paragraphs, ${M.questions.length} questions, ${M.code.length} code prompts (${Date.now() - t0} ms)`);
const o = { seed, scale };
const hand = generateHardNegatives(M, o);
const all: CorpusRow[] = [
  ...M.rows,
  ...hand.filter((r) => r.origin === 'hand-written'),
  ...loadHandwritten(handwrittenDir),
  ...hand.filter((r) => r.origin !== 'hand-written'),
  ...generateDirect(M, o),
  ...generateIndirect(M, o),
  ...generateJailbreaks(M, o),
  ...generateCleanDocuments(M, o),
  ...generateUserRequests(M, o),
  ...generateFragments(M, o),
];
if (codeSwitchShare > 0) all.push(...codeSwitch(all, { seed: seed + 24, share: codeSwitchShare }));
// A row needs some text to carry a label (a few source rows are empty).
const { rows, report } = dedupe(all.filter((r) => r.text.length >= 3));
// Seeded shuffle so that a reader taking the head of the file gets a mix.
const rnd = mulberry32(seed);
for (let i = rows.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [rows[i], rows[j]] = [rows[j], rows[i]]; }
assertValid(rows);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, gzipSync(Buffer.from(rows.map((r) => JSON.stringify(r)).join('\n') + '\n'), { level: 9 }));
console.log(`built ${all.length} rows -> ${rows.length} after dedupe (exact ${report.exactDropped}, conflicting labels ${report.conflictsDropped}, near-duplicates ${report.nearDropped} ${JSON.stringify(report.nearByCategory)}) in ${Date.now() - t0} ms -> ${out}`);
const stats = {
  rows: rows.length, dedupe: report,
  category: countBy(rows, (r) => r.category), split: countBy(rows, (r) => r.split), kind: countBy(rows, (r) => r.kind), origin: countBy(rows, (r) => r.origin),
  langByCategory: crossTab(rows, (r) => r.lang, (r) => r.category),
  sourceByCategory: crossTab(rows, (r) => r.source, (r) => r.category),
  generator: countBy(rows, (r) => r.generator ?? '(none)'),
  splitByCategory: crossTab(rows, (r) => r.category, (r) => r.split),
  originByCategory: crossTab(rows, (r) => r.origin, (r) => r.category),
  kindByCategory: crossTab(rows, (r) => r.kind, (r) => r.category),
  materialUseBeforeDedupe: materialUse,
};
console.log(JSON.stringify({ category: stats.category, split: stats.split, kind: stats.kind, origin: stats.origin }));
if (statsFile) writeFileSync(statsFile, JSON.stringify(stats, null, 1) + '\n');
if (relabelLog) writeFileSync(relabelLog, 'file\tverdict\tenglish_row\n' + M.relabelLog.map((l) => `${l.file}\t${l.verdict}\t${l.en.replace(/\t/g, ' ')}`).join('\n') + '\n');
