import { policyOverview } from '../../policies/overview.js';
import type { Services } from '../../services.js';
import type { RuntimeSettings } from '../../settings/store.js';
import type { Api } from '../api.js';
import { protectedErrors } from './schemas.js';

/**
 * GET /v1/policies: the policies in force (docs/policies.md), which keys name each, and the
 * policy each route gets. Changing them: PUT /v1/settings `policies`; a key's: PATCH /v1/keys/{id}.
 */
export function registerPolicyRoutes(api: Api, services: Services, overrides: () => RuntimeSettings): void {
  api.add(
    {
      method: 'get',
      path: '/v1/policies',
      operationId: 'listPolicies',
      summary: 'Policies in force, the keys that use each, and each route\'s effective policy',
      tags: ['settings'],
      auth: true,
      roles: ['admin', 'analyst'],
      responses: {
        '200': {
          description: 'Every policy resolved (targets, version, parent), its keys; routes with the policy a caller without one gets; model pins.',
          schema: {
            type: 'object',
            required: ['policies', 'routes', 'models', 'jwt_claim'],
            properties: {
              policies: { type: 'array', items: { type: 'object', required: ['name', 'version', 'targets'], properties: { name: { type: 'string' }, version: { type: 'string' }, targets: { type: 'object' } } } },
              routes: { type: 'array', items: { type: 'object', properties: { route: { type: 'string' }, policy: { type: 'string' }, version: { type: 'string' }, source: { type: 'string' } } } },
              models: { type: 'object' },
              jwt_claim: { type: 'string' },
            },
          },
        },
        ...protectedErrors,
      },
    },
    async (ctx) => {
      const config = services.config();
      ctx.body = policyOverview({ ...config, overrides: overrides().policies !== undefined }, await services.keys.list());
    },
  );
}
