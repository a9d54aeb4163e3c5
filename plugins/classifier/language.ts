/**
 * Language of a text, for the classifier's per-language thresholds (model.json
 * `lang_thresholds`). The script decides where it alone is enough (kana, Hangul, Thai, Bengali,
 * Devanagari, Hebrew, Greek, Han); otherwise franc-min (MIT; trigram profiles of the languages
 * with 8 million speakers or more, bundled as data, nothing downloaded) picks among the
 * languages below. Only the first SAMPLE characters are read: franc costs about 1 ms per
 * 1,000 characters, and a language does not change within a prompt often enough to matter.
 * Texts too short to call are 'und'. Training (scripts/train-classifier.ts) calibrates the
 * thresholds with this same function, so a language is named the same way at both ends.
 */
import { franc } from 'franc-min';

const ISO3: Record<string, string> = {
  eng: 'en', deu: 'de', fra: 'fr', spa: 'es', ita: 'it', por: 'pt', nld: 'nl', pol: 'pl', rus: 'ru', ukr: 'uk',
  ces: 'cs', ell: 'el', tur: 'tr', arb: 'ar', pes: 'fa', heb: 'he', hin: 'hi', ben: 'bn', cmn: 'zh', jpn: 'ja',
  kor: 'ko', tha: 'th', vie: 'vi', ind: 'id', swh: 'sw', ron: 'ro', hun: 'hu', hrv: 'hr', srp: 'sr', bul: 'bg',
  urd: 'ur', tam: 'ta', swe: 'sv', dan: 'da', fin: 'fi', zlm: 'ms', tgl: 'tl', slk: 'sk', hau: 'ha', yor: 'yo',
};
const LATIN_CYRILLIC_ARABIC = Object.keys(ISO3);
/** Characters read from the start of a text. */
export const SAMPLE = 400;
/** Fewer letters than this: 'und'. */
const MIN_LENGTH = 16;

export function identifyLanguage(text: string): string {
  const s = text.length > SAMPLE ? text.slice(0, SAMPLE) : text;
  if (/[\u3040-\u30ff]/.test(s)) return 'ja';
  if (/[\uac00-\ud7af]/.test(s)) return 'ko';
  if (/[\u0e00-\u0e7f]/.test(s)) return 'th';
  if (/[\u0980-\u09ff]/.test(s)) return 'bn';
  if (/[\u0900-\u097f]/.test(s)) return 'hi';
  if (/[\u0590-\u05ff]/.test(s)) return 'he';
  if (/[\u0370-\u03ff]/.test(s)) return 'el';
  const han = s.match(/[\u4e00-\u9fff]/g)?.length ?? 0;
  if (han > 0 && han * 4 > s.length) return 'zh';
  const code = franc(s, { only: LATIN_CYRILLIC_ARABIC, minLength: MIN_LENGTH });
  return code === 'und' ? 'und' : (ISO3[code] ?? code);
}
