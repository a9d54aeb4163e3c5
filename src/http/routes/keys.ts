import type { ApiKeyRecord } from '../../auth/api-keys.js';
import { POLICY_NAME_PATTERN } from '../../config/schema/policies.js';
import { unknownPolicyProblem } from '../../policies/validate.js';
import type { Services } from '../../services.js';
import type { Api } from '../api.js';
import { badRequest, notFound } from '../errors.js';
import { notFoundError, protectedErrors } from './schemas.js';

export const apiKeySchema = {
  type: 'object',
  required: ['id', 'name', 'role', 'created_at', 'last_used_at', 'expires_at', 'rate_limit', 'revoked_at'],
  properties: {
    id: { type: 'string', pattern: '^key_' },
    name: { type: 'string' },
    role: { enum: ['admin', 'analyst', 'service'] },
    created_at: { type: 'string', format: 'date-time' },
    last_used_at: { type: ['string', 'null'], format: 'date-time' },
    expires_at: { type: ['string', 'null'], format: 'date-time' },
    rate_limit: { type: ['integer', 'null'] },
    revoked_at: { type: ['string', 'null'], format: 'date-time' },
    policy: { type: ['string', 'null'], description: 'The policy this key\'s requests get (docs/policies.md); null: the route\'s, the model\'s or default.' },
  },
};

const policyField = { type: ['string', 'null'], pattern: POLICY_NAME_PATTERN, description: 'A policy name from `policies` in warden.yaml, or default; null for none.' };

/** API key management (admin only). The secret is returned once, at creation. */
export function registerKeyRoutes(api: Api, services: Services): void {
  /** A key may name only a policy the running configuration defines. */
  const checkPolicy = (policy: string | null | undefined) => {
    if (policy === undefined || policy === null) return;
    const problem = unknownPolicyProblem('policy', policy, services.config());
    if (problem) throw badRequest(problem, 'policy');
  };
  const keyRef = api.component('ApiKey', apiKeySchema);

  api.add(
    {
      method: 'post',
      path: '/v1/keys',
      operationId: 'createKey',
      summary: 'Create an API key (the secret is shown once)',
      tags: ['keys'],
      auth: true,
      roles: ['admin'],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'role'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          role: { enum: ['admin', 'analyst', 'service'] },
          expires_at: { type: ['string', 'null'], format: 'date-time' },
          rate_limit: { type: ['integer', 'null'], minimum: 1, maximum: 1000000 },
          policy: policyField,
        },
      },
      responses: {
        '201': { description: 'Created; `key` holds the secret, shown only now.', schema: { allOf: [keyRef, { type: 'object', required: ['key'], properties: { key: { type: 'string', pattern: '^svc_' } } }] } },
        ...protectedErrors,
      },
    },
    async (ctx) => {
      const body = ctx.state.body as { name: string; role: ApiKeyRecord['role']; expires_at?: string | null; rate_limit?: number | null; policy?: string | null };
      if (body.expires_at && Date.parse(body.expires_at) <= Date.now()) throw badRequest('expires_at: must be in the future.', 'expires_at');
      checkPolicy(body.policy);
      const expires = body.expires_at ? new Date(body.expires_at).toISOString() : null;
      const { key, secret } = await services.keys.create({ ...body, expires_at: expires });
      ctx.status = 201;
      ctx.body = { ...key, key: secret };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/keys',
      operationId: 'listKeys',
      summary: 'List API keys (never their secrets)',
      tags: ['keys'],
      auth: true,
      roles: ['admin'],
      responses: { '200': { description: 'All keys, oldest first, revoked ones included.', schema: { type: 'object', properties: { data: { type: 'array', items: keyRef } } } }, ...protectedErrors },
    },
    async (ctx) => {
      ctx.body = { data: await services.keys.list() };
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/v1/keys/:key_id',
      operationId: 'updateKey',
      summary: 'Change an API key\'s policy (null clears it)',
      tags: ['keys'],
      auth: true,
      roles: ['admin'],
      body: { type: 'object', additionalProperties: false, required: ['policy'], properties: { policy: policyField } },
      responses: { '200': { description: 'The changed key.', schema: keyRef }, ...protectedErrors, ...notFoundError },
    },
    async (ctx) => {
      const { policy } = ctx.state.body as { policy: string | null };
      checkPolicy(policy);
      const changed = await services.keys.setPolicy(String(ctx.params.key_id), policy);
      if (!changed) throw notFound(`No API key ${ctx.params.key_id}.`);
      services.events.emit('system_status', {
        status: 'config_reloaded',
        version: services.version,
        detail: `policy of API key ${changed.id} set to ${policy ?? '(none)'} by ${ctx.state.principal!.subject}`,
      });
      ctx.body = changed;
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/v1/keys/:key_id',
      operationId: 'revokeKey',
      summary: 'Revoke an API key',
      tags: ['keys'],
      auth: true,
      roles: ['admin'],
      responses: { '200': { description: 'The revoked key.', schema: keyRef }, ...protectedErrors, ...notFoundError },
    },
    async (ctx) => {
      const revoked = await services.keys.revoke(String(ctx.params.key_id));
      if (!revoked) throw notFound(`No API key ${ctx.params.key_id}.`);
      ctx.body = revoked;
    },
  );
}
