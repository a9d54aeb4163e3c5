/**
 * JSON Schema of POST /v1/chat/completions, used by ajv to validate requests and published in
 * /openapi.json. Strict on the fields Warden reads, open to the rest (OpenAI adds parameters
 * often, and upstreams validate their own): an unknown top-level field is passed through.
 */

const textPart = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', minLength: 1 },
    text: { type: 'string' },
    image_url: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, detail: { type: 'string' } } },
  },
} as const;

const content = {
  anyOf: [{ type: 'string' }, { type: 'array', items: textPart }, { type: 'null' }],
} as const;

const toolCall = {
  type: 'object',
  required: ['id', 'type', 'function'],
  properties: {
    id: { type: 'string' },
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name', 'arguments'],
      properties: { name: { type: 'string' }, arguments: { type: 'string' } },
    },
  },
} as const;

export const chatMessageSchema = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
    content,
    name: { type: 'string' },
    tool_calls: { type: 'array', items: toolCall },
    tool_call_id: { type: 'string' },
  },
  allOf: [
    { if: { properties: { role: { const: 'tool' } } }, then: { required: ['tool_call_id', 'content'] } },
    { if: { properties: { role: { enum: ['system', 'developer', 'user'] } } }, then: { required: ['content'] } },
  ],
} as const;

export const chatCompletionRequestSchema = {
  type: 'object',
  required: ['model', 'messages'],
  properties: {
    model: { type: 'string', minLength: 1, maxLength: 256 },
    messages: { type: 'array', minItems: 1, maxItems: 4096, items: chatMessageSchema },
    stream: { type: 'boolean' },
    stream_options: {
      anyOf: [{ type: 'object', properties: { include_usage: { type: 'boolean' } } }, { type: 'null' }],
    },
    n: { anyOf: [{ type: 'integer', minimum: 1, maximum: 16 }, { type: 'null' }] },
    tools: {
      type: 'array',
      maxItems: 128,
      items: {
        type: 'object',
        required: ['type', 'function'],
        properties: {
          type: { const: 'function' },
          function: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}$' },
              description: { type: 'string' },
              parameters: { type: 'object' },
              strict: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
            },
          },
        },
      },
    },
    tool_choice: {
      anyOf: [
        { enum: ['none', 'auto', 'required'] },
        {
          type: 'object',
          required: ['type', 'function'],
          properties: { type: { const: 'function' }, function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } } },
        },
      ],
    },
    response_format: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { enum: ['text', 'json_object', 'json_schema'] },
        json_schema: { type: 'object' },
      },
    },
    max_tokens: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
    max_completion_tokens: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
    temperature: { anyOf: [{ type: 'number', minimum: 0, maximum: 2 }, { type: 'null' }] },
    top_p: { anyOf: [{ type: 'number', minimum: 0, maximum: 1 }, { type: 'null' }] },
    stop: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 4 }, { type: 'null' }] },
    user: { type: 'string' },
  },
} as const;

/** The OpenAI completion as Warden returns it (for /openapi.json; not used to validate). */
export const chatCompletionResponseSchema = {
  type: 'object',
  required: ['id', 'object', 'created', 'model', 'choices'],
  properties: {
    id: { type: 'string' },
    object: { const: 'chat.completion' },
    created: { type: 'integer' },
    model: { type: 'string' },
    choices: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          index: { type: 'integer' },
          message: { type: 'object' },
          finish_reason: { enum: ['stop', 'length', 'tool_calls', 'content_filter', 'function_call', null] },
        },
      },
    },
    usage: {
      type: 'object',
      properties: { prompt_tokens: { type: 'integer' }, completion_tokens: { type: 'integer' }, total_tokens: { type: 'integer' } },
    },
  },
} as const;
