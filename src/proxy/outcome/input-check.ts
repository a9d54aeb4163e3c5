import { hasPhrase } from './protected.js';
import { fold } from './text.js';

/**
 * The optional context-aware input check (`security.outcome.input_check`): when the system
 * prompt protects something (protected values were found in it) and the latest user turn asks
 * about a protected kind of thing or for a way to smuggle it out, the request is flagged before
 * it goes upstream. Out of context "what is the password" or "write an acrostic of the code" are
 * ordinary questions; beside a prompt that guards a password they are the usual extraction
 * attempts. It only flags (severity medium: recorded, not blocked under the default
 * `block_severity: high`); the output guards remain the backstop that blocks.
 *
 * "Asks about it": the user turn holds a secret phrase (password, access code, secret... in
 * many languages: secret-phrases.ts), or an extraction cue below.
 */
const CUES = [
  'acrostic', 'first letter', 'first three letters', 'letter by letter', 'spell', 'backwards', 'reversed', 'base64', 'encode', 'hex',
  'akrostichon', 'anfangsbuchstaben', 'buchstabiere', 'ruckwarts', 'acrostiche', 'premiere lettre', 'epelle', 'a l envers', 'acrostico',
  'primera letra', 'deletrea', 'al reves', 'primeira letra', 'soletre', 'акростих', 'первые буквы', 'по буквам', 'задом наперед',
  '藏头诗', '首字母', '倒着', '逐字', 'あいうえお作文', '頭文字', '逆から',
];

export interface InputCheckEvidence {
  /** What in the user turn asked: a secret phrase or an extraction cue. */
  asked: 'secret_phrase' | 'extraction_cue';
  cue?: string;
  protected_values: number;
}

export function inputCheck(lastUserTurn: string, protectedCount: number): InputCheckEvidence | null {
  if (!protectedCount || !lastUserTurn) return null;
  if (hasPhrase(lastUserTurn)) return { asked: 'secret_phrase', protected_values: protectedCount };
  const f = fold(lastUserTurn).replace(/[-'’]/g, ' ');
  const cue = CUES.find((c) => f.includes(c));
  return cue ? { asked: 'extraction_cue', cue, protected_values: protectedCount } : null;
}
