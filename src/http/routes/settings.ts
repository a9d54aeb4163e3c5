import { policiesSchema } from '../../config/schema/policies.js';
import { orphanedKeysProblem, policyProblems } from '../../policies/validate.js';
import type { Services } from '../../services.js';
import { SETTING_KEYS, applySettings, type RuntimeSettings, type SettingsStore } from '../../settings/store.js';
import type { Api } from '../api.js';
import { badRequest } from '../errors.js';
import { protectedErrors } from './schemas.js';

const settingsSchema = {
  type: 'object',
  required: ['rate_limit', 'mode', 'block_severity'],
  properties: {
    rate_limit: { type: 'integer', description: 'Requests per minute per credential.' },
    mode: { enum: ['enforce', 'monitor'] },
    block_severity: { enum: ['low', 'medium', 'high', 'critical'] },
  },
};

/**
 * Runtime settings for admins: effective values (warden.yaml plus overrides) and the overrides
 * themselves. A change applies to every instance at once and is announced with system_status.
 */
const { default: _noDefault, ...policiesBody } = policiesSchema;

/**
 * A `policies` override is refused, and the running policies kept, when the configuration it
 * would give is not valid (an extends that names a missing or circular parent, redact where it
 * cannot apply, a pin naming a policy that would no longer exist) or when an API key names a
 * policy it removes.
 */
async function checkPolicies(services: Services, policies: RuntimeSettings['policies'] | null, current: RuntimeSettings): Promise<void> {
  const { policies: _old, ...rest } = current;
  const file = services.config();
  const next = applySettings(file, policies === null ? rest : { ...rest, policies });
  // null restores the file's section: the effective config's is the override's until then.
  if (policies === null) return;
  const problems = policyProblems(next);
  if (problems.length) throw badRequest(`policies: ${problems.join('; ')}`, 'policies', 'invalid_policies');
  const orphaned = orphanedKeysProblem(await services.keys.list(), policies, 'this change');
  if (orphaned !== null) throw badRequest(orphaned, 'policies', 'invalid_policies');
}

export function registerSettingsRoutes(api: Api, services: Services, store: SettingsStore, overrides: () => RuntimeSettings): void {
  const view = () => {
    const sec = services.config().security;
    return { settings: { rate_limit: sec.rate_limit, mode: sec.mode, block_severity: sec.block_severity }, overrides: overrides() };
  };
  const response = { type: 'object', required: ['settings', 'overrides'], properties: { settings: settingsSchema, overrides: { type: 'object' } } };

  api.add(
    { method: 'get', path: '/v1/settings', operationId: 'getSettings', summary: 'Effective runtime settings and the overrides over warden.yaml', tags: ['settings'], auth: true, roles: ['admin'], responses: { '200': { description: 'Settings.', schema: response }, ...protectedErrors } },
    (ctx) => {
      ctx.body = view();
    },
  );

  api.add(
    {
      method: 'put',
      path: '/v1/settings',
      operationId: 'updateSettings',
      summary: 'Change runtime settings for the whole cluster (null restores the warden.yaml value)',
      tags: ['settings'],
      auth: true,
      roles: ['admin'],
      body: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          rate_limit: { type: ['integer', 'null'], minimum: 1, maximum: 1000000 },
          mode: { enum: ['enforce', 'monitor', null] },
          block_severity: { enum: ['low', 'medium', 'high', 'critical', null] },
          policies: { anyOf: [policiesBody, { type: 'null' }], description: 'Replaces the `policies` section of warden.yaml as a whole (docs/policies.md); null restores the file\'s.' },
        },
      },
      responses: { '200': { description: 'The new settings.', schema: response }, ...protectedErrors },
    },
    async (ctx) => {
      const patch = ctx.state.body as Record<string, unknown>;
      if (!SETTING_KEYS.some((k) => k in patch)) throw badRequest('body: name at least one of rate_limit, mode, block_severity, policies.');
      if ('policies' in patch) await checkPolicies(services, patch.policies as RuntimeSettings['policies'] | null, overrides());
      await store.update(patch);
      const changed = Object.entries(patch)
        .map(([k, v]) => `${k}=${v === null ? '(file value)' : k === 'policies' ? Object.keys(v as object).join('/') || '(none)' : String(v)}`)
        .join(', ');
      services.events.emit('system_status', {
        status: 'config_reloaded',
        version: services.version,
        detail: `settings changed by ${ctx.state.principal!.subject}: ${changed}`,
      });
      ctx.body = view();
    },
  );
}
