export const limitsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  properties: {
    max_body_bytes: { type: 'integer', minimum: 1024, maximum: 104857600, default: 1048576 },
    batch_max_items: { type: 'integer', minimum: 1, maximum: 100000, default: 1000 },
    max_json_depth: { type: 'integer', minimum: 2, maximum: 1000, default: 64, description: 'Deeper JSON bodies are refused with 400.' },
  },
} as const;
