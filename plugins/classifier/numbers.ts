/**
 * Account, card and phone numbers are data, not language: the classifier does not read them.
 *
 * The model folds every digit to `0`, so a printed IBAN or card number becomes `0000 0000 0000`,
 * and its n-grams (`0000 0000`, `00 0`, `0 00`) learned their weight from the corpus, where 96 of
 * the 100 training rows with space-grouped digits are attacks (payment-fraud injections; benign
 * payment requests with an account number are missing). A benign "transfer 850 euros to ...,
 * IBAN ES91 2100 ...,  for the rent" scored 4.2 to 4.5 for the digits alone (-1.3 without them).
 * The same spirit as abstaining on data (src/scanning/structure.ts): what the numbers say is not
 * what an injection says, and an injection that carries one is caught by its words.
 *
 * Masked (replaced by spaces, so offsets and spans stay as they are): what the pii detector
 * recognises with its own checks (src/scanning/pii-kinds.ts): IBANs that pass mod 97 at their
 * country's length, card numbers that pass Luhn in card groupings with an issuer prefix, and
 * phone numbers (E.164 and national formats with area-code shape, 8-15 digits, not a date, not
 * a piece of a longer digit group). A run that fails its check (an IBAN with a wrong check
 * digit, 16 random digits) is read as before.
 */
import { findPiiKinds, PII_KIND_BITS } from '../../src/scanning/pii-kinds.js';

const { card: CARD, iban: IBAN, phone: PHONE } = PII_KIND_BITS;
/** Every masked kind has two digits in a row; most texts have none (one test, nothing allocated). */
const TWO_DIGITS = /\d\d/;
const LOWER = /[a-z]/;
const LOWER_RUNS = /[a-z]+/g;
/** pii-kinds.ts' IBAN gate, blind to case: the probe below (a copy of the text) is only made
 * for a text that passes it (measured: the copy for every text with digits was ~10 ms per
 * bench pass). */
const IBAN_GATE_ANY_CASE = /[a-z]{2}\d\d ?[a-z0-9]{4} ?[a-z0-9]{4}/i;
/** More than any text holds in practice; past it the rest is read as before. */
const MAX_PER_KIND = 256;

/**
 * `text` with its account, card and phone numbers replaced by spaces (same length), or `text`
 * itself when it has none. IBANs are matched case-blind (the normalised view is lower case): on
 * a probe of the text with its ASCII letters in capitals, which keeps every offset. Cards and
 * phone numbers are matched on the text as it is (the phone check reads the case of the
 * character before a number: `DE12 3456` is a longer group, `at 030 5550 1234` is not).
 */
export function maskNumbers(text: string): string {
  if (!TWO_DIGITS.test(text)) return text;
  const lower = LOWER.test(text);
  const spans = [...(findPiiKinds(text, lower ? CARD | PHONE : CARD | PHONE | IBAN, MAX_PER_KIND)?.values() ?? [])].flat();
  if (lower && IBAN_GATE_ANY_CASE.test(text)) {
    const probe = text.replace(LOWER_RUNS, (s) => s.toUpperCase());
    for (const s of findPiiKinds(probe, IBAN, MAX_PER_KIND)?.get('iban') ?? []) spans.push(s);
  }
  if (spans.length === 0) return text;
  spans.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const s of spans) {
    if (s.end <= at) continue;
    const from = Math.max(at, s.start);
    out += text.slice(at, from) + ' '.repeat(s.end - from);
    at = s.end;
  }
  return out + text.slice(at);
}
