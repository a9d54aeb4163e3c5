/**
 * pii: personal data in model output (and, for the high-risk kinds, in prompts): payment card
 * numbers that pass the Luhn check, IBANs that pass ISO 13616 mod-97, e-mail addresses and
 * phone numbers (E.164 and common national formats).
 *
 * Why prompts get fewer kinds by default: a user pasting their own e-mail address or phone
 * number into a prompt is ordinary; the same data appearing in a model's answer is a leak.
 * Card numbers and IBANs are reported everywhere. Both lists are configurable.
 *
 * The formats and their checks live in src/scanning/pii-kinds.ts (the classifier masks the same
 * numbers before it reads a text); re-exported here for the tests and older imports.
 */
import type { DetectorPlugin, Finding, NormalisedInput, Severity } from '../../src/scanning/types.js';
import { findPiiKinds, kindBits, type PiiKind } from '../../src/scanning/pii-kinds.js';

export { luhnValid, cardGrouping, ibanValid, findPii, piiGates, PII_PATTERNS, PII_KIND_BITS, type PiiKind } from '../../src/scanning/pii-kinds.js';

interface KindSpec { severity: Severity; confidence: number; label: string }
const KIND_SPEC: Record<PiiKind, KindSpec> = {
  card: { severity: 'high', confidence: 0.9, label: 'payment card number (Luhn-valid)' },
  iban: { severity: 'high', confidence: 0.9, label: 'IBAN (checksum-valid)' },
  email: { severity: 'low', confidence: 0.9, label: 'e-mail address' },
  phone: { severity: 'low', confidence: 0.6, label: 'phone number' },
};

const plugin: DetectorPlugin = {
  meta: {
    name: 'pii',
    version: '1.0.0',
    description: 'Payment cards (Luhn), IBANs (mod 97), e-mail addresses and phone numbers.',
    // rag too (tool results, retrieved documents, with prompt_kinds): what a policy does with
    // the finding is the policy's (docs/policies.md); the built-in default flags it there.
    targets: ['prompt', 'rag', 'output'],
    defaultConfig: { prompt_kinds: ['card', 'iban'], output_kinds: ['card', 'iban', 'email', 'phone'], max_spans: 50 },
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['prompt_kinds', 'output_kinds', 'max_spans'],
      properties: {
        prompt_kinds: { type: 'array', uniqueItems: true, items: { enum: Object.keys(KIND_SPEC) } },
        output_kinds: { type: 'array', uniqueItems: true, items: { enum: Object.keys(KIND_SPEC) } },
        max_spans: { type: 'integer', minimum: 1 },
      },
    },
  },
  scan(input: NormalisedInput, ctx): Finding[] {
    const key = input.target === 'output' ? 'output_kinds' : 'prompt_kinds';
    const raw = ctx.config[key] as PiiKind[];
    const kinds = kindBits(raw);
    if (kinds === 0) return [];
    const found = findPiiKinds(input.original, kinds, ctx.config.max_spans as number);
    if (found === null || found.size === 0) return [];
    const findings: Finding[] = [];
    for (const [kind, spans] of found) {
      const spec = KIND_SPEC[kind];
      findings.push({
        attackType: 'pii_exposure', severity: spec.severity, confidence: spec.confidence,
        ruleId: `pii.${kind}`, message: `${spans.length} ${spec.label}${spans.length > 1 ? 's' : ''} found`, spans,
      });
    }
    return findings;
  },
};

export default plugin;
