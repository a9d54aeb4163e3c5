import type { Api } from '../api.js';
import type { Services } from '../../services.js';

/** Unauthenticated health, status and metrics endpoints for load balancers and Prometheus. */
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
      path: '/status',
      operationId: 'status',
      summary: 'Full status: version, instance, uptime, backends and counters',
      tags: ['health'],
      auth: false,
      responses: { '200': { description: 'Status document.', schema: { type: 'object', required: ['status', 'version', 'instance_id', 'uptime_seconds', 'backends'] } } },
    },
    async (ctx) => {
      ctx.body = await statusDocument(services);
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

export async function statusDocument(services: Services): Promise<Record<string, unknown>> {
  const config = services.config();
  const sections: Record<string, unknown> = {};
  for (const [name, read] of services.statusSections) {
    try {
      sections[name] = await read();
    } catch (err) {
      sections[name] = { status: 'degraded', error: (err as Error).message };
    }
  }
  const requests = await services.httpMetrics.requests.get();
  const byStatus: Record<string, number> = {};
  for (const v of requests.values) byStatus[String(v.labels.status)] = (byStatus[String(v.labels.status)] ?? 0) + v.value;
  const rateLimit = { ...services.rateLimitHealth };
  const degraded = !rateLimit.healthy || Object.values(sections).some((s) => (s as { status?: string })?.status === 'degraded');
  return {
    status: degraded ? 'degraded' : 'ok',
    version: services.version,
    instance_id: services.instanceId,
    started_at: services.startedAt.toISOString(),
    uptime_seconds: Math.round((Date.now() - services.startedAt.getTime()) / 1000),
    backends: {
      rate_limit: rateLimit,
      api_keys: services.redis ? 'redis' : 'memory',
      redis: services.redis ? { status: services.redis.status } : null,
    },
    settings: {
      mode: config.security.mode,
      rate_limit: config.security.rate_limit,
      block_severity: config.security.block_severity,
      fail_mode: config.security.fail_mode,
    },
    counters: { http_requests_by_status: byStatus },
    ...sections,
  };
}
