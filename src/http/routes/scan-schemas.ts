/** The request and response schemas of the scan routes (routes/scans.ts); /openapi.json publishes them as they are. */
import { ATTACK_TYPES, SEVERITIES, TARGETS } from '../../scanning/types.js';
import type { JsonSchema } from '../api.js';

export const MAX_TEXT = 1_048_576;

export const messageSchema: JsonSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
    content: {
      anyOf: [
        { type: 'string' },
        { type: 'null' },
        { type: 'array', items: { type: 'object', required: ['type'], properties: { type: { type: 'string' }, text: { type: 'string' } } } },
      ],
    },
    name: { type: 'string' },
    tool_call_id: { type: 'string' },
    tool_calls: {
      type: 'array',
      items: { type: 'object', properties: { function: { type: 'object', properties: { name: { type: 'string' }, arguments: { type: 'string' } } } } },
    },
  },
};

/** One scan subject: `input` (a text) or `messages` (OpenAI chat messages), not both. */
export const subjectProperties = {
  input: { type: 'string', maxLength: MAX_TEXT, description: 'A text to scan.' },
  messages: { type: 'array', minItems: 1, maxItems: 1000, items: messageSchema, description: 'OpenAI chat messages, read by the same field map as /v1/chat/completions: user and assistant turns (and names) are scanned as prompts, tool results, tool-call arguments and unknown fields as retrieved data; system and developer turns only with security.input.scan_system_turns. Threats name message_index and field.' },
  source: { enum: ['prompt', 'output', 'rag'], default: 'prompt', description: 'What `input` is: a prompt, model output, or retrieved data.' },
  metadata: { type: 'object', description: 'Stored with the record.' },
};

export const scanRequestSchema: JsonSchema = { type: 'object', additionalProperties: false, properties: subjectProperties };
export const batchItemSchema: JsonSchema = { type: 'object', additionalProperties: false, properties: { id: { type: 'string', maxLength: 200 }, ...subjectProperties } };

export const spanSchema = { type: 'object', required: ['start', 'end'], properties: { start: { type: 'integer' }, end: { type: 'integer' } } };
export const threatSchema: JsonSchema = {
  type: 'object',
  required: ['threat_id', 'attack_type', 'severity', 'confidence', 'action_taken', 'detector', 'rule_id', 'message', 'spans'],
  properties: {
    threat_id: { type: 'string', pattern: '^thr_' },
    attack_type: { type: 'string', examples: [...ATTACK_TYPES] },
    severity: { enum: [...SEVERITIES] },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    action_taken: { enum: ['blocked', 'flagged', 'sanitized', 'logged'] },
    detector: { type: 'string' },
    rule_id: { type: 'string' },
    message: { type: 'string' },
    spans: { type: 'array', items: spanSchema, description: 'Offsets (UTF-16 code units) in the original input, or in messages[message_index].' },
    message_index: { type: 'integer' },
    evidence: { type: 'object', description: 'Context-aware checks (the chat proxy\'s outcome guards): what was seen, e.g. the tool-call argument and where its destination entered.' },
    field: { type: 'string', description: 'For messages input: the field the spans are offsets in, e.g. messages[2].content[0].text.' },
  },
};
export const resultSchema: JsonSchema = {
  type: 'object',
  required: ['scan_id', 'verdict', 'flagged', 'risk_score', 'threats', 'latency_ms', 'created_at'],
  properties: {
    scan_id: { type: 'string', pattern: '^scn_' },
    verdict: { enum: ['allow', 'flag', 'block'] },
    flagged: { type: 'boolean' },
    risk_score: { type: 'number', minimum: 0, maximum: 1 },
    threats: { type: 'array', items: { $ref: '#/components/schemas/Threat' } },
    latency_ms: { type: 'number' },
    created_at: { type: 'string', format: 'date-time' },
    source: { enum: [...TARGETS] },
    error: { type: ['object', 'null'], description: 'Set when a detector failed or timed out; the verdict then follows security.fail_mode.' },
    policy: { type: 'string', description: 'The policy that decided the verdict (docs/policies.md).' },
    policy_version: { type: 'string', description: 'A hash of that policy\'s rules: it changes whenever what the policy decides can.' },
    redacted_text: { type: 'string', description: 'For `input` scans whose policy redacts a finding: the input with each redacted span replaced by a typed placeholder ([EMAIL_1]).' },
  },
};
export const recordSchema: JsonSchema = {
  allOf: [
    { $ref: '#/components/schemas/ScanResult' },
    {
      type: 'object',
      required: ['source', 'input_sha256', 'input_length', 'caller', 'request_id', 'instance_id'],
      properties: {
        input_sha256: { type: 'string' },
        input_length: { type: 'integer' },
        input: { type: ['string', 'null'], description: 'Per storage.store_input: an excerpt (default), the full text, or null.' },
        input_truncated: { type: 'boolean' },
        caller: { type: ['string', 'null'] },
        request_id: { type: 'string' },
        instance_id: { type: 'string' },
        rules_version: { type: 'string' },
        provider: { type: 'string' },
        model: { type: 'string' },
        metadata: { type: 'object' },
      },
    },
  ],
};
