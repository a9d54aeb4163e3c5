import type { Api } from '../api.js';
import type { Services } from '../../services.js';

/** Unauthenticated health and metrics endpoints for load balancers and Prometheus (/status: routes/status.ts). */
export function registerSystemRoutes(api: Api, services: Services, extras: { providers: () => Promise<unknown[]> }): void {
  api.add(
    {
      method: 'get',
      path: '/health',
      operationId: 'health',
      summary: 'Basic health check',
      tags: ['health'],
      auth: false,
      responses: {
        '200': {
          description: 'The instance is up.',
          schema: { type: 'object', properties: { status: { const: 'ok' }, instance_id: { type: 'string' } }, required: ['status'] },
        },
      },
    },
    (ctx) => {
      ctx.body = { status: 'ok', instance_id: services.instanceId };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/health/providers',
      operationId: 'providerHealth',
      summary: 'Per-provider health status',
      tags: ['health'],
      auth: false,
      responses: {
        '200': {
          description: 'One record per configured provider (empty when none is configured).',
          schema: { type: 'object', properties: { providers: { type: 'array', items: { type: 'object' } } }, required: ['providers'] },
        },
      },
    },
    async (ctx) => {
      ctx.body = { providers: await extras.providers() };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      summary: 'Prometheus metrics',
      tags: ['health'],
      auth: false,
      responses: { '200': { description: 'Prometheus text exposition format.', contentType: 'text/plain', schema: { type: 'string' } } },
    },
    async (ctx) => {
      ctx.type = services.registry.contentType;
      ctx.body = await services.registry.metrics();
    },
  );
}
