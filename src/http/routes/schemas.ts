import type { JsonSchema, ResponseSpec } from '../api.js';

/** Schemas shared by several routes. */
export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code', 'param'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string' },
        code: { type: ['string', 'null'] },
        param: { type: ['string', 'null'] },
        request_id: { type: 'string' },
      },
    },
  },
};

const error = (description: string): ResponseSpec => ({ description, schema: { $ref: '#/components/schemas/Error' } });

/** The failures every protected operation can answer with. */
export const protectedErrors: Record<string, ResponseSpec> = {
  '400': error('Malformed JSON or a schema violation; the message names the field.'),
  '401': error('No or bad credential.'),
  '403': error('Credential valid, role not allowed.'),
  '413': error('Body over limits.max_body_bytes.'),
  '415': error('Not application/json.'),
  '429': error('Rate limit exceeded; see Retry-After.'),
};

export const notFoundError = { '404': error('Unknown id.') };
export const errorResponse = error;
