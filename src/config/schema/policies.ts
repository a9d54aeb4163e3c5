/**
 * `policies`: named policies (docs/policies.md). Each sets, for all targets and per target
 * (`prompt`, `rag`, `output`), the severity that blocks, the fail mode, which detectors count,
 * per-detector confidence thresholds and an action per attack type, detector or rule id. What
 * the schema cannot say (an `extends` that names a missing or circular parent, `redact` where a
 * finding has no spans to replace) src/policies/validate.ts checks after it.
 *
 * `policy_routing`: which policy a request gets besides its credential's (routes, model pins,
 * the JWT claim name).
 */
const severity = { enum: ['low', 'medium', 'high', 'critical'] } as const;
export const POLICY_ACTIONS = ['block', 'flag', 'redact', 'allow'] as const;
/** A policy name: what an API key, a JWT claim or a pin may carry. */
export const POLICY_NAME_PATTERN = '^[a-z0-9][a-z0-9_.-]{0,62}$';

const targetRules = {
  type: 'object',
  additionalProperties: false,
  properties: {
    block_severity: { ...severity, description: 'Lowest severity a `block` finding blocks at; below it the finding is flagged.' },
    fail_mode: { enum: ['closed', 'open'], description: 'What a detector error or time-out does.' },
    detectors: { type: 'array', uniqueItems: true, maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 100 }, description: 'Detectors whose findings (and failures) count; default all.' },
    thresholds: {
      type: 'object',
      maxProperties: 100,
      additionalProperties: { type: 'number', minimum: 0, maximum: 1 },
      description: 'Per detector: findings below this confidence are ignored.',
    },
    actions: {
      type: 'object',
      maxProperties: 200,
      additionalProperties: { enum: [...POLICY_ACTIONS] },
      description: 'Action by rule id (pii.iban), detector (pii) or attack type (pii_exposure); the most specific key wins; default block.',
    },
  },
} as const;

export const policySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    extends: { type: 'string', pattern: POLICY_NAME_PATTERN, description: 'The parent policy (default: `default`).' },
    description: { type: 'string', maxLength: 500 },
    ...targetRules.properties,
    prompt: targetRules,
    rag: targetRules,
    output: targetRules,
  },
} as const;

export const policiesSchema = {
  type: 'object',
  default: {},
  maxProperties: 200,
  propertyNames: { pattern: POLICY_NAME_PATTERN },
  additionalProperties: policySchema,
  description: 'Named policies; `default` (built in, may be overridden here) applies when nothing else names one.',
} as const;

export const policyRoutingSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    routes: {
      type: 'object',
      default: {},
      propertyNames: { enum: ['/v1/scan', '/v1/scan/batch', '/v1/rag/scan', '/v1/chat/completions'] },
      additionalProperties: { type: 'string', pattern: POLICY_NAME_PATTERN },
      description: 'Policy by route, for callers whose credential names none.',
    },
    models: {
      type: 'object',
      default: {},
      additionalProperties: { type: 'string', pattern: POLICY_NAME_PATTERN },
      description: 'Policy by requested model (an alias an agent uses); wins over the route.',
    },
    jwt_claim: { type: 'string', minLength: 1, maxLength: 100, default: 'warden_policy', description: 'The JWT claim that names a caller\'s policy.' },
  },
} as const;
