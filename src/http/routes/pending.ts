import type { Api, Operation } from '../api.js';
import { notImplemented } from '../errors.js';
import { protectedErrors } from './schemas.js';

/**
 * /v1 operations the interface promises that this build does not serve yet. They are real
 * routes (authenticated, rate limited, documented) answering 501 in the error shape. Any
 * operation a subsystem has already registered is skipped.
 */
export const PENDING: Pick<Operation, 'method' | 'path' | 'summary' | 'tags'>[] = [
  { method: 'post', path: '/v1/chat/completions', summary: 'OpenAI-compatible chat completions with scanning', tags: ['proxy'] },
  { method: 'post', path: '/v1/scan', summary: 'Scan a single prompt or message', tags: ['scan'] },
  { method: 'post', path: '/v1/scan/batch', summary: 'Scan many inputs', tags: ['scan'] },
  { method: 'post', path: '/v1/rag/scan', summary: 'Scan RAG documents for indirect injection', tags: ['scan'] },
  { method: 'get', path: '/v1/scans', summary: 'List scan records', tags: ['scan'] },
  { method: 'get', path: '/v1/scans/:scan_id', summary: 'One scan record', tags: ['scan'] },
];

export function registerPendingRoutes(api: Api): void {
  for (const op of PENDING) {
    if (api.operations.some((o) => o.method === op.method && o.path === op.path)) continue;
    api.add(
      {
        ...op,
        operationId: `${op.method}${op.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
        description: 'Not served by this build yet: answers 501 after authentication and rate limiting.',
        auth: true,
        responses: { '501': { description: 'Not implemented yet.', schema: { $ref: '#/components/schemas/Error' } }, ...protectedErrors },
      },
      () => {
        throw notImplemented(`${op.method.toUpperCase()} ${op.path}`);
      },
    );
  }
}
