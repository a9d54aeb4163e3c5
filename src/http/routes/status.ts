import type { Services } from '../../services.js';
import type { Api } from '../api.js';
import type { WardenContext } from '../state.js';

/**
 * GET /status: open to anyone (the interface keeps it so, for load balancers and uptime checks),
 * but only an authenticated caller (any role) sees the internals: file paths, provider names,
 * spend, counters and every section's detail. Without a credential it says whether each part is
 * ok, which backend each store is on, and the last reload error; a bad credential is a 401.
 */
export function registerStatusRoute(api: Api, services: Services): void {
  api.add(
    {
      method: 'get',
      path: '/status',
      operationId: 'status',
      summary: 'Status: version, instance, uptime, backends, last reload error; the internals (paths, providers, spend, counters) for authenticated callers',
      description:
        'Open without a credential, with what an uptime check needs: status, version, backends and each section\'s status. With a credential (API key, Bearer JWT or the dashboard session) it adds file paths, provider names, spend, counters and every section\'s detail.',
      tags: ['health'],
      auth: false,
      responses: {
        '200': {
          description: 'Status document.',
          schema: {
            type: 'object',
            required: ['status', 'version', 'instance_id', 'uptime_seconds', 'backends', 'last_reload_error', 'detail'],
            properties: {
              detail: { enum: ['full', 'public'], description: 'public: no credential was given, internals are left out.' },
              last_reload_error: { type: ['string', 'null'], description: 'Why the last configuration reload was refused (null when it was applied, or none was tried).' },
            },
          },
        },
      },
    },
    async (ctx) => {
      const full = await statusDocument(services);
      ctx.body = (ctx as WardenContext).state.principal ? full : publicView(full);
    },
  );
}

/** The backend each store is on, as they are (not as configured). */
function backends(services: Services): Record<string, unknown> {
  return {
    storage: services.storage.backend,
    api_keys: services.storage.backend,
    rate_limit: { ...services.rateLimitHealth },
    redis: services.redis ? { status: services.redis.status } : null,
  };
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
  const degraded = !services.rateLimitHealth.healthy || Object.values(sections).some((s) => (s as { status?: string })?.status === 'degraded');
  const reloadError = (sections.config as { last_reload_error?: string | null } | undefined)?.last_reload_error ?? null;
  return {
    status: degraded ? 'degraded' : 'ok',
    detail: 'full',
    version: services.version,
    instance_id: services.instanceId,
    started_at: services.startedAt.toISOString(),
    uptime_seconds: Math.round((Date.now() - services.startedAt.getTime()) / 1000),
    last_reload_error: reloadError,
    backends: backends(services),
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

/** A section field an anonymous caller may see: a number, flag or word; never a list (provider names, plugins), a file, or text naming a path. */
const isPublicField = (key: string, value: unknown): boolean =>
  value === null || typeof value === 'number' || typeof value === 'boolean' || (typeof value === 'string' && !/^(file|path|dir)$|_(file|path|dir)$/.test(key) && !/[\\/]/.test(value));
// settings (mode, rate limit, block severity, fail mode) stay open: a client may check the policy it is under.
const PUBLIC_TOP_KEYS = ['status', 'detail', 'version', 'instance_id', 'started_at', 'uptime_seconds', 'last_reload_error', 'backends', 'settings'];
const SECTIONS_HIDDEN = new Set(['spend', 'counters']);

function publicView(full: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of PUBLIC_TOP_KEYS) out[k] = full[k];
  out.settings = { ...(full.settings as object) };
  // The reload error names the file: its name stays, its folder does not.
  if (typeof full.last_reload_error === 'string') out.last_reload_error = full.last_reload_error.replace(/(?:\/[^\s/():,"]+)+/g, (p) => p.slice(p.lastIndexOf('/') + 1));
  out.detail = 'public';
  for (const [k, v] of Object.entries(full)) {
    if (PUBLIC_TOP_KEYS.includes(k) || SECTIONS_HIDDEN.has(k) || v === null || typeof v !== 'object') continue;
    out[k] = Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([key, value]) => isPublicField(key, value)));
  }
  return out;
}
