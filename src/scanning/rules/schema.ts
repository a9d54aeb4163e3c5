/**
 * The shape of one rule in rules/*.yaml (a file is a YAML list of these). Validated with ajv
 * before anything is compiled; an unknown key is an error, so a typo never silently disables
 * a field.
 */
import { ATTACK_TYPES, SEVERITIES, TARGETS, type AttackType, type Severity, type Target } from '../types.js';

export type RuleCondition = 'any' | 'all' | { at_least: number };

/** A rule as written in the file. */
export interface RuleDefinition {
  id: string;
  title: string;
  description?: string;
  attack_type: AttackType;
  severity: Severity;
  confidence: number;
  targets: Target[];
  patterns: string[];
  /** Default 'any'. */
  condition?: RuleCondition;
  references?: string[];
  tests?: { match?: string[]; no_match?: string[] };
  /** Default true; false keeps the rule in the file (and linted) but out of the matcher. */
  enabled?: boolean;
}

/** A validated rule plus where it came from. Plain data: it is sent to the scan workers. */
export interface RuleSpec extends RuleDefinition {
  /** Rule file stem ('prompt-injection' for rules/prompt-injection.yaml). */
  file: string;
  path: string;
  line: number;
}

export const RULE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$';

export const ruleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'title', 'attack_type', 'severity', 'confidence', 'targets', 'patterns'],
  properties: {
    id: { type: 'string', pattern: RULE_ID_PATTERN },
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string' },
    attack_type: { type: 'string', enum: [...ATTACK_TYPES] },
    severity: { type: 'string', enum: [...SEVERITIES] },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    targets: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...TARGETS] } },
    patterns: { type: 'array', minItems: 1, maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 20000 } },
    condition: {
      oneOf: [
        { type: 'string', enum: ['any', 'all'] },
        {
          type: 'object',
          additionalProperties: false,
          required: ['at_least'],
          properties: { at_least: { type: 'integer', minimum: 1 } },
        },
      ],
    },
    references: { type: 'array', items: { type: 'string', minLength: 1 } },
    tests: {
      type: 'object',
      additionalProperties: false,
      properties: {
        match: { type: 'array', items: { type: 'string' } },
        no_match: { type: 'array', items: { type: 'string' } },
      },
    },
    enabled: { type: 'boolean' },
  },
} as const;

/** How many distinct patterns must match for the rule to hit. */
export function requiredMatches(rule: Pick<RuleDefinition, 'condition' | 'patterns'>): number {
  const c = rule.condition ?? 'any';
  if (c === 'any') return 1;
  if (c === 'all') return rule.patterns.length;
  return c.at_least;
}
