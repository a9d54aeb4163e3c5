import { compact, tokens, words, type AnswerViews } from './text.js';

/**
 * System-prompt leakage: how much of the system and developer turns an answer reproduces.
 *
 * Three measures, each accumulated over everything the request's answer showed so far (the
 * windows of a stream overlap; matches are kept as sets, so nothing is counted twice):
 *  - word shingles: distinct word 3-grams of the prompt found in any view of the answer
 *    (verbatim, reformatted, re-cased, lightly edited: every unchanged run of 3 words counts);
 *  - character coverage: prompt characters covered by 12-character shingles of the answer's
 *    letters-only form, forwards and reversed (spaced out, punctuated out, one word per line,
 *    written backwards, CJK without spaces, decoded from base64 or hex);
 *  - rare tokens (translated recital, a stretch): the prompt's numbers, identifiers, addresses
 *    and codes survive translation; when most of them reappear together, the prompt was
 *    recited in another language.
 * A threshold is the larger of a floor and a share of the prompt (capped), so a short public
 * fact the prompt and the answer share (a company name, opening hours, a phone number) never
 * reaches it.
 */
export interface LeakageOptions {
  /** Word 3-grams needed at least (default 12: ~14 words in a row, or more with edits). */
  min_shingles: number;
  /** Share of the prompt's word 3-grams or characters that counts as substantial (default 0.2). */
  min_fraction: number;
  /** The share is capped here (a long prompt still leaks with 40 shingles recited). */
  max_shingles: number;
  /** Prompt characters (letters and digits) covered at least (default 80)... */
  min_chars: number;
  /** ...or this share of them (default 0.35: two of a prompt's facts quoted are not a recital). */
  char_fraction: number;
  max_chars: number;
  /** Check for a translated recital by rare tokens (default true). */
  translated: boolean;
  /** Rare tokens the prompt must hold for that check (default 6), and the share that must reappear (default 0.7). */
  min_rare_tokens: number;
  rare_fraction: number;
}

export const DEFAULT_LEAKAGE: LeakageOptions = {
  min_shingles: 12,
  min_fraction: 0.2,
  max_shingles: 40,
  min_chars: 80,
  char_fraction: 0.35,
  max_chars: 400,
  translated: true,
  min_rare_tokens: 6,
  rare_fraction: 0.7,
};

const K = 12;
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export interface LeakageEvidence {
  measure: 'word_shingles' | 'characters' | 'rare_tokens';
  matched: number;
  needed: number;
  of: number;
  /** The answer view it was seen in first (original, normalised, decoded:base64...). */
  view: string;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);

/** B^(K-1) for the rolling hash (32-bit). */
const B = 31;
let BK = 1;
for (let i = 1; i < K; i++) BK = Math.imul(BK, B);

/** Calls `f(start, hash)` for every K-character run of `s` that holds no NUL (the separator
 * between system turns): a rolling hash, so no substring is built per position. */
function forEachGram(s: string, f: (start: number, hash: number) => void): void {
  let h = 0;
  let lastNul = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0) lastNul = i;
    if (i >= K) h = (h - Math.imul(s.charCodeAt(i - K), BK)) | 0;
    h = (Math.imul(h, B) + c) | 0;
    if (i >= K - 1 && lastNul <= i - K) f(i - K + 1, h);
  }
}

function sameRun(a: string, ai: number, b: string, bi: number): boolean {
  for (let k = 0; k < K; k++) if (a.charCodeAt(ai + k) !== b.charCodeAt(bi + k)) return false;
  return true;
}

/** Tokens that survive translation: anything with a digit, @, _, or a camel/upper-case code. */
export function rareTokens(text: string): string[] {
  const out = new Set<string>();
  for (const raw of tokens(text)) {
    const t = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (t.length < 3) continue;
    if (/\p{N}/u.test(t) || /[@_]/.test(t) || /\p{Ll}\p{Lu}/u.test(t) || /^[\p{Lu}\p{N}-]{4,}$/u.test(t)) out.add(compact(t));
  }
  out.delete('');
  return [...out];
}

export class LeakageMeter {
  private readonly shingles = new Set<string>();
  private readonly matchedShingles = new Set<string>();
  private readonly prompt: string;
  /** Rolling hash of each 12-character run of the prompt → where it starts (verified on a hit). */
  private readonly grams = new Map<number, number[]>();
  private readonly covered: Uint8Array;
  /** Weight of each prompt character: 3 for a character of a script without spaces (one such
   * character carries about what three Latin letters do), else 1. */
  private readonly weight: Uint8Array;
  private coveredCount = 0;
  private readonly rare: string[];
  private readonly matchedRare = new Set<string>();
  /** Letters and digits of answer seen so far (windows overlap: an upper bound). */
  private answerChars = 0;
  private readonly shingleNeed: number;
  private readonly charNeed: number;
  private readonly rareNeed: number;

  constructor(systemTexts: string[], private readonly opts: LeakageOptions = DEFAULT_LEAKAGE) {
    for (const t of systemTexts) {
      const w = words(t);
      for (let i = 0; i + 3 <= w.length; i++) this.shingles.add(`${w[i]} ${w[i + 1]} ${w[i + 2]}`);
    }
    this.prompt = systemTexts.map(compact).join('\u0000');
    forEachGram(this.prompt, (i, h) => {
      const list = this.grams.get(h);
      if (list) {
        if (list.length < 8) list.push(i);
      } else this.grams.set(h, [i]);
    });
    this.covered = new Uint8Array(this.prompt.length);
    this.weight = new Uint8Array(this.prompt.length);
    let L = 0;
    for (let i = 0; i < this.prompt.length; i++) L += this.weight[i] = CJK_CHAR.test(this.prompt[i]!) ? 3 : 1;
    this.rare = rareTokens(systemTexts.join('\n'));
    const T = this.shingles.size;
    this.shingleNeed = T < 8 ? Infinity : T < opts.min_shingles ? Math.max(8, Math.ceil(0.8 * T)) : clamp(Math.ceil(opts.min_fraction * T), opts.min_shingles, Math.max(opts.min_shingles, opts.max_shingles));
    this.charNeed = L < 40 ? Infinity : L < opts.min_chars ? Math.max(40, Math.ceil(0.8 * L)) : clamp(Math.ceil(opts.char_fraction * L), opts.min_chars, Math.max(opts.min_chars, opts.max_chars));
    this.rareNeed = opts.translated && this.rare.length >= opts.min_rare_tokens ? Math.max(opts.min_rare_tokens - 1, Math.ceil(opts.rare_fraction * this.rare.length)) : Infinity;
  }

  /** Whether there is a prompt worth guarding. */
  get active(): boolean {
    return this.shingleNeed !== Infinity || this.charNeed !== Infinity;
  }

  /** Adds what this piece of answer reproduces; the evidence once a threshold is reached. */
  observe(views: AnswerViews): LeakageEvidence | null {
    const kinds = views.kinds;
    let hit: LeakageEvidence | null = null;
    views.folded.forEach((t, vi) => {
      const w = words(t);
      for (let i = 0; i + 3 <= w.length; i++) {
        const s = `${w[i]} ${w[i + 1]} ${w[i + 2]}`;
        if (this.shingles.has(s)) this.matchedShingles.add(s);
      }
      if (!hit && this.matchedShingles.size >= this.shingleNeed) hit = { measure: 'word_shingles', matched: this.matchedShingles.size, needed: this.shingleNeed, of: this.shingles.size, view: kinds[vi] ?? 'original' };
    });
    if (hit) return hit;
    views.compacts.forEach((c, ci) => {
      forEachGram(c, (i, h) => {
        const at = this.grams.get(h);
        if (!at) return;
        for (const p of at) {
          if (!sameRun(this.prompt, p, c, i)) continue;
          for (let j = p; j < p + K; j++) {
            if (this.covered[j] === 0) {
              this.covered[j] = 1;
              this.coveredCount += this.weight[j]!;
            }
          }
        }
      });
      const kind = `${kinds[ci >> 1] ?? 'original'}${ci % 2 ? '/reversed' : ''}`;
      if (!hit && this.coveredCount >= this.charNeed) hit = { measure: 'characters', matched: this.coveredCount, needed: this.charNeed, of: this.weight.reduce((a, b) => a + b, 0), view: kind };
    });
    this.answerChars += views.compacts[0]?.length ?? 0;
    // A recital is about as long as the prompt (a translation into Chinese about a third of it):
    // a short answer quoting a few numbers is not one.
    if (hit || this.rareNeed === Infinity || this.answerChars < this.prompt.length * 0.3) return hit;
    const answerWords = new Set<string>();
    for (const t of views.texts) for (const raw of tokens(t)) answerWords.add(compact(raw));
    const joined = views.compacts[0] ?? '';
    for (const r of this.rare) if (answerWords.has(r) || (r.length >= 6 && joined.includes(r))) this.matchedRare.add(r);
    if (this.matchedRare.size >= this.rareNeed) return { measure: 'rare_tokens', matched: this.matchedRare.size, needed: this.rareNeed, of: this.rare.length, view: 'original' };
    return null;
  }
}
