import { authSchema } from './auth.js';
import { eventsSchema, kafkaSchema, wsSchema } from './events.js';
import { jobsSchema } from './jobs.js';
import { limitsSchema } from './limits.js';
import { healthChecksSchema, pricingSchema, providersSchema, spendSchema } from './providers.js';
import { policiesSchema, policyRoutingSchema } from './policies.js';
import { scanningSchema } from './scanning.js';
import { securitySchema } from './security.js';
import { serverSchema } from './server.js';
import { redisSchema, storageSchema } from './storage.js';

/** The whole warden.yaml, one section per concern. Unknown keys anywhere are errors. */
export const configSchema = {
  $id: 'https://warden.dev/schemas/config.json',
  type: 'object',
  additionalProperties: false,
  properties: {
    server: serverSchema,
    auth: authSchema,
    security: securitySchema,
    policies: policiesSchema,
    policy_routing: policyRoutingSchema,
    limits: limitsSchema,
    redis: redisSchema,
    storage: storageSchema,
    scanning: scanningSchema,
    events: eventsSchema,
    kafka: kafkaSchema,
    ws: wsSchema,
    jobs: jobsSchema,
    providers: providersSchema,
    pricing: pricingSchema,
    spend: spendSchema,
    health_checks: healthChecksSchema,
  },
} as const;
