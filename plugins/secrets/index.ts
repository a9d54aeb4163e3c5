/**
 * secrets: credentials in prompts and model output (cloud keys, API tokens, JWTs, private
 * keys, high-entropy `api_key=` assignments; the formats are in src/scanning/secret-kinds.ts,
 * which the proxy's protected-value guard shares). Vendor formats are matched case-sensitively
 * on the ORIGINAL text (normalising would fold the case that makes them recognisable); the
 * generic assignment check adds a Shannon-entropy test so placeholders and words don't match.
 */
import RE2 from 're2';
import { SECRET_KINDS, secretKindsIn } from '../../src/scanning/secret-kinds.js';
import type { DetectorPlugin, Finding, NormalisedInput, Span } from '../../src/scanning/types.js';

/** Bits per character of the string's own symbol distribution. */
export function shannonEntropy(s: string): number {
  if (s.length === 0) return 0;
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) counts.set(s.charCodeAt(i), (counts.get(s.charCodeAt(i)) ?? 0) + 1);
  let h = 0;
  for (const c of counts.values()) { const p = c / s.length; h -= p * Math.log2(p); }
  return h;
}

/**
 * A real key mixes character classes; "aaaaaaaaaaaaaaaa" or an English word run does not, and
 * code that names where a secret comes from (`process.env.GITHUB_TOKEN`, `OPENAI_API_KEY`,
 * `config.apiKey`) is not the secret. Inputs are short captures (at most 200 characters).
 */
const LOWER = new RE2('[a-z]');
const UPPER = new RE2('[A-Z]');
const DIGIT = new RE2('[0-9]');
const PLACEHOLDER = new RE2('x{6,}|\\*{4,}|your|example|placeholder|changeme|redacted|here', 'i');
const DOTTED_IDENTIFIER = new RE2('^[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)+$');
const ENV_VAR_NAME = new RE2('^[A-Z][A-Z0-9_]*$');

function looksRandom(s: string): boolean {
  const classes = (LOWER.test(s) ? 1 : 0) + (UPPER.test(s) ? 1 : 0) + (DIGIT.test(s) ? 1 : 0);
  if (classes < 2 || PLACEHOLDER.test(s)) return false;
  return !DOTTED_IDENTIFIER.test(s) && !ENV_VAR_NAME.test(s);
}

/** What a message may show of a secret: its length and, past 15 characters, the last three (the type is the label). */
function redact(secret: string): string {
  return secret.length < 16 ? `*** (${secret.length} chars)` : `…${secret.slice(-3)} (${secret.length} chars)`;
}

const plugin: DetectorPlugin = {
  meta: {
    name: 'secrets',
    version: '1.0.0',
    description: 'Cloud and API credentials, tokens, JWTs and private keys in prompts and model output.',
    targets: ['prompt', 'output'],
    defaultConfig: { disabled_kinds: [] as string[], max_findings: 20 },
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['disabled_kinds', 'max_findings'],
      properties: { disabled_kinds: { type: 'array', uniqueItems: true, items: { enum: SECRET_KINDS.map((k) => k.id) } }, max_findings: { type: 'integer', minimum: 1 } },
    },
  },
  scan(input: NormalisedInput, ctx): Finding[] {
    // Config first, as before the gate: a malformed disabled_kinds still fails every scan.
    const disabled = new Set(ctx.config.disabled_kinds as string[]);
    const max = ctx.config.max_findings as number;
    const text = input.original;
    const findings: Finding[] = [];
    // UTF-8 bytes: RE2 would otherwise convert the string (the gate's copy, else the shared one).
    for (const k of secretKindsIn(text, () => input.originalUtf8)) {
      const kind = SECRET_KINDS[k]!;
      if (disabled.has(kind.id)) continue;
      const spans: Span[] = [];
      let sample = '';
      kind.re.lastIndex = 0;
      for (let m = kind.re.exec(text); m && spans.length < max; m = kind.re.exec(text)) {
        const secret = kind.group ? m[kind.group] ?? '' : m[0];
        const start = kind.group ? m.index + m[0].indexOf(secret) : m.index;
        // The delimiters around a group are not part of it: the next match may start on them.
        if (kind.group && m[0].length > 0) kind.re.lastIndex = start + secret.length;
        if (kind.minEntropy !== undefined && (shannonEntropy(secret) < kind.minEntropy || !looksRandom(secret))) continue;
        if (kind.accept && !kind.accept(m)) continue;
        spans.push({ start, end: start + secret.length });
        sample ||= secret;
        if (m[0].length === 0) kind.re.lastIndex++;
      }
      if (spans.length > 0) {
        findings.push({
          attackType: 'secret_exposure', severity: kind.severity, confidence: kind.confidence,
          ruleId: `secrets.${kind.id}`, message: `${kind.label} found: ${redact(sample)}`, spans,
        });
      }
    }
    // A generic hit inside a span a specific kind already reported is the same secret.
    const specific = findings.filter((f) => f.ruleId !== 'secrets.generic-assignment');
    return findings.filter((f) => f.ruleId !== 'secrets.generic-assignment' || !f.spans.every((s) => specific.some((o) => o.spans.some((p) => p.start < s.end && s.start < p.end))));
  },
};

export default plugin;
