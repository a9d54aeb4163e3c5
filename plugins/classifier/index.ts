/**
 * classifier: a linear model over hashed character 4-grams and word 1-2-grams (features.ts;
 * model.json names the feature families), trained by scripts/train-classifier.ts on the
 * development set. It catches paraphrases and languages the rule files do not spell out. Long texts are scored per window
 * (chunks of `chunk_chars`, windows of `window_chunks` chunks) and judged by the worst window,
 * so an injection buried in a long document is not averaged away.
 *
 * Weights are int8 with one float scale per head (model.json + weights.bin, 2 x 2^bits bytes),
 * loaded once per worker. The scan is one pass with no allocation per n-gram.
 * Heads: `detect` (attack vs benign) and `type` (jailbreak vs injection, for attack_type).
 */
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';
import { WindowScorer, F_ALL, F_PACK4 } from './features.js';
import type { DetectorPlugin, Finding, NormalisedInput, AttackType, Severity } from '../../src/scanning/types.js';

interface Head { bias: number; scale: number; offset: number }
export interface ModelFile {
  format: string;
  bits: number;
  /** Feature families bit mask (features.ts F_*). */
  features: number;
  chunk_chars: number;
  window_chunks: number;
  heads: { detect: Head; type: Head };
  /** Threshold for texts of one window or less. */
  threshold_logit: number;
  /** Threshold for longer texts, judged by their best window (higher: best of many by chance). */
  threshold_logit_long?: number;
}

/** model.json sits next to the source; compiled code runs from dist/, so look in both places. */
function locate(name: string): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const candidates = [resolve(here, name), resolve(here, '../../../plugins/classifier', name)];
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`classifier: ${name} not found (looked in ${candidates.join(', ')}); run scripts/train-classifier`);
  return found;
}

export class Classifier {
  readonly model: ModelFile;
  private readonly detect: Int8Array;
  private readonly type: Int8Array;
  private readonly scorer = new WindowScorer();

  constructor(model: ModelFile, weights: Int8Array) {
    // /2 added the packed 4-gram family (F_PACK4); a /1 model uses only the first four families.
    if (model.format !== 'warden-hashed-logreg/1' && model.format !== 'warden-hashed-logreg/2') throw new Error(`classifier: unknown model format ${model.format}`);
    if ((model.features & ~(F_ALL | F_PACK4)) !== 0 || model.features === 0) throw new Error(`classifier: unknown feature families ${model.features}`);
    const size = 1 << model.bits;
    if (weights.length !== 2 * size) throw new Error(`classifier: weights have ${weights.length} bytes, expected ${2 * size}`);
    this.model = model;
    this.detect = weights.subarray(model.heads.detect.offset, model.heads.detect.offset + size);
    this.type = weights.subarray(model.heads.type.offset, model.heads.type.offset + size);
  }

  static load(): Classifier {
    const model = JSON.parse(readFileSync(locate('model.json'), 'utf8')) as ModelFile;
    const buf = readFileSync(locate('weights.bin'));
    return new Classifier(model, new Int8Array(buf.buffer, buf.byteOffset, buf.byteLength));
  }

  /** Logit of the most suspicious window, and that window's range in the scored text. */
  score(text: string): { logit: number; start: number; end: number } {
    const m = this.model;
    const r = this.scorer.score(text, this.detect, m.bits, m.chunk_chars, m.window_chunks, m.features);
    return { logit: m.heads.detect.bias + m.heads.detect.scale * r.raw, start: r.start, end: r.end };
  }

  /** > 0 means the window reads like a jailbreak rather than an instruction injection. */
  typeLogit(text: string): number {
    const m = this.model;
    const r = this.scorer.score(text, this.type, m.bits, m.chunk_chars, m.window_chunks, m.features);
    return m.heads.type.bias + m.heads.type.scale * r.raw;
  }
}

let shared: Classifier | undefined;
function classifier(): Classifier {
  shared ??= Classifier.load();
  return shared;
}

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

const plugin: DetectorPlugin = {
  meta: {
    name: 'classifier',
    version: '1.0.0',
    description: 'Hashed n-gram logistic regression trained on the development set; catches paraphrased and non-English injections and jailbreaks.',
    targets: ['prompt', 'rag'],
    // null thresholds = the ones chosen by cross-validation, stored in model.json.
    defaultConfig: { threshold_logit: null as number | null, threshold_logit_long: null as number | null, view: 'normalised' },
  },
  scan(input: NormalisedInput, ctx): Finding[] {
    const c = classifier();
    const wanted = String(ctx.config.view ?? 'normalised');
    const view = input.views.find((v) => v.kind === wanted) ?? input.views[0]!;
    const { logit, start, end } = c.score(view.text);
    const long = view.text.length > c.model.chunk_chars * c.model.window_chunks;
    const configured = long ? ctx.config.threshold_logit_long : ctx.config.threshold_logit;
    const fromModel = long ? c.model.threshold_logit_long ?? c.model.threshold_logit : c.model.threshold_logit;
    const threshold = typeof configured === 'number' ? configured : fromModel;
    if (!(logit >= threshold)) return [];
    const windowText = view.text.slice(start, end);
    const attackType: AttackType = input.target === 'rag' ? 'indirect_injection' : c.typeLogit(windowText) > 0 ? 'jailbreak' : 'prompt_injection';
    const confidence = Math.min(0.95, sigmoid(logit - threshold + 1));
    const severity: Severity = logit >= threshold + 3 ? 'high' : 'medium';
    return [{
      attackType, severity, confidence: Number(confidence.toFixed(3)),
      ruleId: `classifier.${attackType}`,
      message: `Statistical classifier: text resembles known ${attackType.replace('_', ' ')} (score ${logit.toFixed(2)}, threshold ${threshold.toFixed(2)})`,
      spans: [view.toOriginal(start, Math.max(start, end))],
    }];
  },
};

export default plugin;
