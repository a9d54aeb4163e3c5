/**
 * A stand-in NormalisedInput for detector tests and the offline content harness.
 *
 * The real normaliser lives in the engine (src/scanning). Detector tests must not depend on
 * its internals, so they build inputs here: the original text plus one 'normalised' view
 * (NFKC, lower case, invisible characters dropped) whose offsets map back exactly, and
 * signals counted the same simple way. Extra views (e.g. a decoded payload) can be passed in.
 */
import type { NormalisedInput, NormalisationSignals, Target, TextView } from '../src/scanning/types.js';

const INVISIBLE = /[\u200B-\u200F\u2060-\u2064\uFEFF\u00AD\u202A-\u202E\u2066-\u2069]|\uDB40[\uDC00-\uDC7F]/g;

function identityView(kind: string, text: string): TextView {
  return { kind, text, toOriginal: (start, end) => ({ start, end }) };
}

/** A view whose characters each come from one original index (or a run of them). */
function mappedView(kind: string, original: string): TextView {
  const out: string[] = [];
  const origIndex: number[] = [];
  for (let i = 0; i < original.length; ) {
    const cp = original.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const ch = original.slice(i, i + width);
    INVISIBLE.lastIndex = 0;
    if (!INVISIBLE.test(ch)) {
      const folded = ch.normalize('NFKC').toLowerCase();
      for (let k = 0; k < folded.length; k++) {
        out.push(folded[k]!);
        origIndex.push(i);
      }
    }
    i += width;
  }
  const text = out.join('');
  return {
    kind,
    text,
    toOriginal(start, end) {
      if (text.length === 0) return { start: 0, end: 0 };
      const s = origIndex[Math.min(start, origIndex.length - 1)]!;
      const lastIdx = origIndex[Math.max(0, Math.min(end, origIndex.length) - 1)]!;
      const lastWidth = (original.codePointAt(lastIdx) ?? 0) > 0xffff ? 2 : 1;
      return { start: s, end: end <= start ? s : lastIdx + lastWidth };
    },
  };
}

export function emptySignals(): NormalisationSignals {
  return { invisibleChars: 0, tagChars: 0, bidiControls: 0, confusables: 0, leetspeakWords: 0, spacedWords: 0, decodedPayloads: 0 };
}

export interface TestInputOptions {
  target?: Target;
  signals?: Partial<NormalisationSignals>;
  /** Extra views, e.g. { kind: 'decoded:base64', text: '...' } mapped onto the whole input. */
  extraViews?: { kind: string; text: string }[];
}

export function makeInput(original: string, opts: TestInputOptions = {}): NormalisedInput {
  const signals = emptySignals();
  for (const ch of original) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xe0000 && cp <= 0xe007f) signals.tagChars++;
    else if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) signals.bidiControls++;
    else if ((cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2060 && cp <= 0x2064) || cp === 0xfeff || cp === 0xad) signals.invisibleChars++;
  }
  Object.assign(signals, opts.signals ?? {});
  const views: TextView[] = [identityView('original', original), mappedView('normalised', original)];
  for (const extra of opts.extraViews ?? []) {
    views.push({ kind: extra.kind, text: extra.text, toOriginal: () => ({ start: 0, end: original.length }) });
  }
  signals.decodedPayloads += opts.extraViews?.length ?? 0;
  return { original, target: opts.target ?? 'prompt', views, signals };
}
