import type { ListedModel } from '../../providers/models.js';
import type { Api, JsonSchema } from '../api.js';
import { WardenError } from '../errors.js';
import { notFoundError, protectedErrors } from './schemas.js';

const model: JsonSchema = {
  type: 'object',
  required: ['id', 'object', 'created', 'owned_by'],
  properties: { id: { type: 'string' }, object: { const: 'model' }, created: { type: 'integer' }, owned_by: { type: 'string' } },
};

/**
 * GET /v1/models and GET /v1/models/{model}: OpenAI's model list, so an OpenAI SDK's
 * `client.models.list()` works against Warden: the names of `providers[].models`, globs expanded
 * against the providers' own listings (src/providers/models.ts says which).
 */
export function registerModelRoutes(api: Api, models: () => Promise<ListedModel[]>, startedAt: Date): void {
  const created = Math.floor(startedAt.getTime() / 1000);
  const objectOf = (m: ListedModel) => ({ id: m.id, object: 'model' as const, created, owned_by: m.owned_by });
  api.add(
    {
      method: 'get',
      path: '/v1/models',
      operationId: 'listModels',
      summary: 'Models the configured providers serve (OpenAI shape)',
      description: 'Literal names from `providers[].models`, and for a glob (`fake-*`) the names the provider listed at its last health check that match it (refreshed with the health checks). `owned_by` is the provider name.',
      tags: ['proxy'],
      auth: true,
      roles: ['admin', 'service'],
      responses: {
        '200': { description: 'The list.', schema: { type: 'object', required: ['object', 'data'], properties: { object: { const: 'list' }, data: { type: 'array', items: model } } } },
        ...protectedErrors,
      },
    },
    async (ctx) => {
      ctx.body = { object: 'list', data: (await models()).map(objectOf) };
    },
  );
  api.add(
    {
      method: 'get',
      path: '/v1/models/:model',
      operationId: 'retrieveModel',
      summary: 'One model the configured providers serve (OpenAI shape)',
      tags: ['proxy'],
      auth: true,
      roles: ['admin', 'service'],
      responses: { '200': { description: 'The model.', schema: model }, ...protectedErrors, ...notFoundError },
    },
    async (ctx) => {
      const found = (await models()).find((m) => m.id === ctx.params.model);
      if (!found) throw new WardenError(404, 'not_found_error', `No configured provider lists the model "${ctx.params.model}".`, { code: 'model_not_found', param: 'model' });
      ctx.body = objectOf(found);
    },
  );
}
