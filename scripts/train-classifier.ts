/**
 * Train the classifier plugin's model: logistic regression over hashed character n-grams and
 * word 1-2-grams (plugins/classifier/features.ts), scored per window so a long document is
 * judged by its most suspicious part.
 *
 *   node dist/scripts/train-classifier.js [--data FILE.jsonl] [--bits 17] [--features 24]
 *     [--epochs 20] [--lr 0.3] [--cv [--cv-mode rows|family] [--dump-cv FILE]]
 *     [--extra-benign DIR] [--out plugins/classifier]        (--help lists every option)
 *
 * The defaults build the shipped model: packed character 4-grams + words (F_FAST = 24) in
 * 2^17 buckets, 20 epochs at learning rate 0.3. `--features 15 --bits 18 --epochs 12 --lr 0.2`
 * builds the first model (character 3-, 4- and 5-grams + words in 2^18 buckets), about 2x
 * dearer to score. Chunks and windows (--chunk, --window) are the same for both.
 *
 * Deterministic: a seeded PRNG drives shuffling, so the same data gives the same weights.
 * --cv scores every row with a model that never saw it (--cv-mode family: every row of a
 * dataset family held out together; rows: 5 folds of rows) and picks the thresholds from
 * those held-out scores: that measures how the model does on text it has never seen, not how
 * well it memorised.
 * Long documents: benign rows contribute every window as a negative; attack rows contribute
 * their highest-scoring window (multiple-instance learning), since only part of an attacked
 * document carries the injection.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hashFeatures, WindowScorer, F_FAST } from '../plugins/classifier/features.js';
import { normalise } from '../src/scanning/normalise/index.js';
import { mulberry32 } from '../src/util/prng.js';

interface Row { text: string; label: number; category?: string; source?: string }
interface Instance { idx: Int32Array; val: Float32Array }
interface Prepared { row: Row; windows: Instance[]; isJailbreak: number }

const args = process.argv.slice(2);
if (args.includes('--help')) {
  console.log(`train-classifier [options]
  --data FILE          labelled JSONL (default /work/shared/data/injection-dev.jsonl)
  --out DIR            where model.json and weights.bin go (default plugins/classifier)
  --bits N             2^N buckets per head (default 17)
  --features MASK      feature families, features.ts: 1 char 3-grams, 2 char 4-grams,
                       4 char 5-grams, 8 words, 16 packed char 4-grams (default 24)
  --chunk N --window N scoring windows: N-char chunks, windows of N chunks (128, 4)
  --epochs N --l2 X --lr X --seed N   training (20, 1e-4, 0.3, 1337)
  --cv                 cross-validate and set thresholds from held-out scores
  --cv-mode rows|family   5 folds of rows, or one dataset family at a time (default family)
  --dump-cv FILE       write the held-out scores (for scripts/detectors/eval-heldout)
  --target-fp X --target-fp-long X   benign flag rate the thresholds allow (0.015, 0.05)
  --extra-benign DIR   markdown under DIR as extra benign text (--extra-max N chunks, 600)`);
  process.exit(0);
}
const opt = (name: string, dflt: string): string => { const i = args.indexOf(name); return i >= 0 && args[i + 1] ? args[i + 1]! : dflt; };
const DATA = opt('--data', '/work/shared/data/injection-dev.jsonl');
const BITS = Number(opt('--bits', '17'));
const OUT = opt('--out', 'plugins/classifier');
const CHUNK = Number(opt('--chunk', '128'));
const WINDOW = Number(opt('--window', '4'));
const EPOCHS = Number(opt('--epochs', '20'));
const L2 = Number(opt('--l2', '1e-4'));
const LR = Number(opt('--lr', '0.3'));
const TARGET_FP = Number(opt('--target-fp', '0.015'));
const TARGET_FP_LONG = Number(opt('--target-fp-long', '0.05'));
const SEED = Number(opt('--seed', '1337'));
const FEATURES = Number(opt('--features', String(F_FAST)));


class Collector {
  buckets: number[] = [];
  positions: number[] = [];
  readonly sink = new WindowScorer();
  constructor() { this.sink.collect = this; }
}

function toInstance(buckets: number[]): Instance {
  const counts = new Map<number, number>();
  for (const b of buckets) counts.set(b, (counts.get(b) ?? 0) + 1);
  const norm = 1 / Math.sqrt(Math.max(1, buckets.length));
  const idx = new Int32Array(counts.size);
  const val = new Float32Array(counts.size);
  let k = 0;
  for (const [b, c] of counts) { idx[k] = b; val[k] = c * norm; k++; }
  return { idx, val };
}

/** The same windows the plugin scores: chunks of CHUNK chars, windows of WINDOW chunks, stride one chunk. */
/** The text the plugin will score: the engine's 'normalised' view when it builds one, else the original. */
function scoredView(text: string): string {
  const input = normalise(text, 'prompt');
  return (input.views.find((v) => v.kind === 'normalised') ?? input.views[0]!).text;
}

function prepare(row: Row): Prepared {
  const col = new Collector();
  const text = scoredView(row.text);
  hashFeatures(text, BITS, col.sink, FEATURES);
  const nChunks = Math.max(1, Math.ceil(text.length / CHUNK));
  const perChunk: number[][] = Array.from({ length: nChunks }, () => []);
  for (let i = 0; i < col.buckets.length; i++) perChunk[Math.min(nChunks - 1, (col.positions[i]! / CHUNK) | 0)]!.push(col.buckets[i]!);
  const windows: Instance[] = [];
  const w = Math.min(WINDOW, nChunks);
  for (let k = 0; k + w <= nChunks; k++) windows.push(toInstance(perChunk.slice(k, k + w).flat()));
  return { row, windows, isJailbreak: row.category === 'jailbreak' ? 1 : 0 };
}

interface Model { w: Float32Array; b: number }
const dot = (m: Model, x: Instance): number => { let s = m.b; for (let k = 0; k < x.idx.length; k++) s += m.w[x.idx[k]!]! * x.val[k]!; return s; };
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));
const rowScore = (m: Model, p: Prepared): number => { let best = -Infinity; for (const x of p.windows) best = Math.max(best, dot(m, x)); return best; };

/**
 * AdaGrad logistic regression. `label(p)` gives 0/1 per row; rows whose windows should all be
 * negatives are expanded, positives use their best window (all windows, down-weighted, in the
 * first two epochs before the model can rank them).
 */
function train(rows: Prepared[], label: (p: Prepared) => number, seed: number): Model {
  const D = 1 << BITS;
  const m: Model = { w: new Float32Array(D), b: 0 };
  const g2 = new Float32Array(D).fill(1e-8);
  let gb2 = 1e-8;
  const rand = mulberry32(seed);
  const pos = rows.filter((p) => label(p) === 1).length;
  const neg = rows.length - pos;
  const wPos = rows.length / (2 * Math.max(1, pos));
  const wNeg = rows.length / (2 * Math.max(1, neg));
  for (let epoch = 0; epoch < EPOCHS; epoch++) {
    const examples: { x: Instance; y: number; weight: number }[] = [];
    for (const p of rows) {
      const y = label(p);
      if (y === 0) {
        const share = wNeg / p.windows.length;
        for (const x of p.windows) examples.push({ x, y, weight: Math.max(share, wNeg * 0.25) });
      } else if (epoch < 2 || p.windows.length === 1) {
        for (const x of p.windows) examples.push({ x, y, weight: wPos / p.windows.length });
      } else {
        let best = p.windows[0]!;
        let bs = -Infinity;
        for (const x of p.windows) { const s = dot(m, x); if (s > bs) { bs = s; best = x; } }
        examples.push({ x: best, y, weight: wPos });
      }
    }
    for (let i = examples.length - 1; i > 0; i--) { const j = Math.floor(rand() * (i + 1)); [examples[i], examples[j]] = [examples[j]!, examples[i]!]; }
    for (const { x, y, weight } of examples) {
      const g = (sigmoid(dot(m, x)) - y) * weight;
      for (let k = 0; k < x.idx.length; k++) {
        const j = x.idx[k]!;
        const gj = g * x.val[k]! + L2 * m.w[j]!;
        g2[j]! += gj * gj;
        m.w[j]! -= (LR * gj) / Math.sqrt(g2[j]!);
      }
      gb2 += g * g;
      m.b -= (LR * g) / Math.sqrt(gb2);
    }
  }
  return m;
}

function quantise(m: Model): { q: Int8Array; scale: number } {
  let max = 1e-12;
  for (let j = 0; j < m.w.length; j++) max = Math.max(max, Math.abs(m.w[j]!));
  const scale = max / 127;
  const q = new Int8Array(m.w.length);
  for (let j = 0; j < m.w.length; j++) q[j] = Math.max(-127, Math.min(127, Math.round(m.w[j]! / scale)));
  return { q, scale };
}

function report(scores: number[], prepared: Prepared[], threshold: number, thresholdLong = threshold): Record<string, unknown> {
  const byCat = new Map<string, [number, number]>();
  const bySrc = new Map<string, [number, number]>();
  prepared.forEach((p, i) => {
    const hit = scores[i]! >= (isLong(p) ? thresholdLong : threshold) ? 1 : 0;
    const cat = p.row.category ?? (p.row.label ? 'attack' : 'benign');
    const c = byCat.get(cat) ?? [0, 0]; c[0] += hit; c[1]++; byCat.set(cat, c);
    const key = `${cat} ${p.row.source ?? '-'}`;
    const s = bySrc.get(key) ?? [0, 0]; s[0] += hit; s[1]++; bySrc.set(key, s);
  });
  return {
    categories: Object.fromEntries([...byCat].map(([k, [h, n]]) => [k, { flagged: h, total: n, rate: +(h / n).toFixed(4) }])),
    sources: Object.fromEntries([...bySrc].sort().map(([k, [h, n]]) => [k, +(h / n).toFixed(3)])),
  };
}

/**
 * Lowest threshold whose benign flag rate is at most targetFp, among rows of one length class:
 * a long text is judged by its best of many windows, so benign long texts score higher by
 * chance and get their own (higher) threshold.
 */
const isLong = (p: Prepared): boolean => p.windows.length > 1;
function pickThreshold(scores: number[], prepared: Prepared[], targetFp: number, long: boolean): number {
  const benign = prepared.map((p, i) => (p.row.label === 0 && p.row.category !== 'extra-benign' && isLong(p) === long ? scores[i]! : NaN)).filter((s) => !Number.isNaN(s)).sort((a, b) => b - a);
  const allowed = Math.floor(benign.length * targetFp);
  return benign[allowed]! + 1e-6;
}

const rows = readFileSync(DATA, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
// --extra-benign DIR: markdown files under DIR (sorted, 1500-char chunks, at most
// --extra-max) as additional benign rows, e.g. dependency documentation: teaches the model that
// ordinary technical prose is benign. They train the model but never set its thresholds.
const EXTRA = opt('--extra-benign', '');
if (EXTRA) {
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.md')) files.push(p);
    }
  };
  walk(EXTRA);
  const max = Number(opt('--extra-max', '600'));
  // Round-robin over files (first chunk of every file, then the second...) for variety.
  const texts = files.map((f) => readFileSync(f, 'utf8'));
  let added = 0;
  for (let i = 0; added < max && texts.some((t) => t.length > i); i += 1500) {
    for (const t of texts) {
      if (added >= max) break;
      if (t.length > i) { rows.push({ text: t.slice(i, i + 1500), label: 0, category: 'extra-benign', source: 'extra' }); added++; }
    }
  }
  console.error(`added ${added} extra benign chunks from ${files.length} files`);
}
const t0 = Date.now();
const prepared = rows.map(prepare);
console.log(`prepared ${rows.length} rows, ${prepared.reduce((s, p) => s + p.windows.length, 0)} windows in ${Date.now() - t0} ms`);

let threshold = 0;
let thresholdLong = 0;
let cv: Record<string, unknown> | undefined;
if (args.includes('--cv')) {
  // A "source" here is the dataset family (owner/repo): BIPIA's benign and attacked e-mails
  // share their contexts, so holding out one without the other would leak the context.
  // --cv-mode rows: 5 folds of rows (new rows from sources the model has seen).
  const ROW_FOLDS = 5;
  const foldOf = rows.map((_, i) => `fold${(Math.imul(i + 1, 2654435761) >>> 0) % ROW_FOLDS}`);
  const byFamily = (r: Row): string => (r.source ?? '-').split('/').slice(0, 2).join('/');
  const rowIndex = new Map(rows.map((r, i) => [r, i]));
  const family = opt('--cv-mode', 'family') === 'rows' ? (r: Row): string => foldOf[rowIndex.get(r)!]! : byFamily;
  const sources = [...new Set(rows.map(family))];
  const scores = new Array<number>(rows.length).fill(0);
  console.error(`cross-validating over ${new Set(rows.map(family)).size} groups`);
  sources.forEach((src, s) => {
    const trainSet = prepared.filter((p) => family(p.row) !== src);
    const m = train(trainSet, (p) => p.row.label, SEED + s);
    prepared.forEach((p, i) => { if (family(p.row) === src) scores[i] = rowScore(m, p); });
  });
  threshold = pickThreshold(scores, prepared, TARGET_FP, false);
  thresholdLong = pickThreshold(scores, prepared, TARGET_FP_LONG, true);
  const dump = opt('--dump-cv', '');
  if (dump) writeFileSync(dump, JSON.stringify(scores.slice(0, rows.filter((r) => r.category !== 'extra-benign').length)));
  cv = { method: opt('--cv-mode', 'family') === 'rows' ? '5-fold-by-row' : 'leave-one-dataset-family-out', target_fp: TARGET_FP, threshold_logit: threshold, threshold_logit_long: thresholdLong, at_threshold: report(scores, prepared, threshold, thresholdLong), at_logit_0: report(scores, prepared, 0) };
  console.log(JSON.stringify(cv, null, 1));
}

const detect = train(prepared, (p) => p.row.label, SEED);
const typeRows = prepared.filter((p) => p.row.label === 1);
const type = train(typeRows, (p) => p.isJailbreak, SEED + 1000);
const dq = quantise(detect);
const tq = quantise(type);
if (!cv) threshold = 0;
const model = {
  format: 'warden-hashed-logreg/2',
  bits: BITS, features: FEATURES, chunk_chars: CHUNK, window_chunks: WINDOW,
  heads: { detect: { bias: detect.b, scale: dq.scale, offset: 0 }, type: { bias: type.b, scale: tq.scale, offset: 1 << BITS } },
  threshold_logit: threshold,
  threshold_logit_long: thresholdLong,
  trained: {
    rows: rows.length, data: DATA.split('/').pop(), extra_benign_chunks: rows.filter((r) => r.category === 'extra-benign').length,
    extra_benign_source: EXTRA || undefined, features: FEATURES, epochs: EPOCHS, l2: L2, lr: LR, seed: SEED,
  },
  cv: cv ? { method: cv.method, target_fp: TARGET_FP, target_fp_long: TARGET_FP_LONG, categories: (cv.at_threshold as { categories: unknown }).categories } : undefined,
};
const bin = new Int8Array(2 << BITS);
bin.set(dq.q, 0);
bin.set(tq.q, 1 << BITS);
writeFileSync(resolve(OUT, 'weights.bin'), Buffer.from(bin.buffer));
writeFileSync(resolve(OUT, 'model.json'), JSON.stringify(model, null, 2) + '\n');
const trainScores = prepared.map((p) => rowScore(detect, p));
console.log('training-set fit at threshold:', JSON.stringify(report(trainScores, prepared, threshold, thresholdLong).categories));
console.log(`wrote ${OUT}/model.json and weights.bin (${bin.length} bytes) in ${Date.now() - t0} ms`);
