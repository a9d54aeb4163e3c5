import { callerId } from '../../auth/principal.js';
import { decodeCursor, type ScanRecord, type ScanFilter, type ScanStore } from '../../scan-service/record.js';
import { resultOf } from '../../scan-service/result.js';
import { sanitize } from '../../scan-service/sanitize.js';
import type { ScanService, ScanSubject } from '../../scan-service/service.js';
import { SEVERITIES, TARGETS, type Target } from '../../scanning/types.js';
import type { Services } from '../../services.js';
import type { Api } from '../api.js';
import { badRequest, notFound, tooLarge } from '../errors.js';
import type { WardenContext } from '../state.js';
import { batchItemSchema, MAX_TEXT, recordSchema, resultSchema, scanRequestSchema, spanSchema, threatSchema } from './scan-schemas.js';
import { subjectOf, type RawMessage } from './scan-subject.js';
import { errorResponse, notFoundError, protectedErrors } from './schemas.js';

// The API view of a record is shared with the scan jobs' results (src/scan-service/result.ts).
export { resultOf };

function who(ctx: WardenContext, metadata?: Record<string, unknown>) {
  const principal = ctx.state.principal!;
  return { requestId: ctx.state.requestId, caller: callerId(principal), policy: principal.policy ?? null, route: ctx.path, ...(metadata ? { metadata } : {}) };
}

/** A text scan's result, with the redacted text when its policy redacted something. */
function withRedacted(service: ScanService, r: ScanRecord, text: string | undefined): Record<string, unknown> {
  const out = resultOf(r);
  const redacted = text === undefined ? null : service.redactedText(r, text);
  return redacted === null ? out : { ...out, redacted_text: redacted };
}

export function registerScanRoutes(api: Api, services: Services, scans: { service: ScanService; store: ScanStore }): void {
  const systemTurns = () => services.config().security.input?.scan_system_turns === true;
  const checkItemCount = (field: string, count: number) => {
    const max = services.config().limits.batch_max_items;
    if (count > max) throw tooLarge(`${field} has ${count} items; the limit is ${max} (limits.batch_max_items).`);
  };
  // A batch item is checked one by one (a bad one gets its own error entry), with the body's validator.
  const checkItem = api.bodyValidator(batchItemSchema);
  // The batch limit as configured at start (a reload may change it; the 413 names the live value).
  const maxItems = services.config().limits.batch_max_items;
  const batchLimit = `At most limits.batch_max_items items (${maxItems} on this server; default 1000): more is a 413 naming the limit.`;
  const batchErrors = { ...protectedErrors, '413': errorResponse(`Body over limits.max_body_bytes, or more items than limits.batch_max_items (${maxItems}).`) };
  api.component('Threat', threatSchema);
  const result = api.component('ScanResult', resultSchema);
  const record = api.component('ScanRecord', recordSchema);

  api.add(
    {
      method: 'post',
      path: '/v1/scan',
      operationId: 'scan',
      summary: 'Scan a single prompt, output or message list',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'service'],
      body: scanRequestSchema,
      responses: { '200': { description: 'The verdict and every threat found; the scan is recorded.', schema: result }, ...protectedErrors },
    },
    async (ctx) => {
      const body = ctx.state.body as { input?: string; messages?: RawMessage[]; source?: Target; metadata?: Record<string, unknown> };
      ctx.body = withRedacted(scans.service, await scans.service.scan(subjectOf(body, systemTurns(), '', services.config().security.input?.undecodable_content), who(ctx, body.metadata)), body.input);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/v1/scan/batch',
      operationId: 'scanBatch',
      summary: 'Scan many inputs in one request (counts as one request for rate limiting)',
      description: 'Results come back in request order, each with its `id`. An invalid item gets its own `error` entry; the others are scanned.',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'service'],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['inputs'],
        properties: { inputs: { type: 'array', minItems: 1, description: batchLimit, 'x-max-items-setting': 'limits.batch_max_items', 'x-max-items': maxItems, items: { description: 'Each: {id?, input | messages, source?, metadata?}; validated one by one.' } } },
      },
      responses: {
        '200': {
          description: 'One entry per input, in order.',
          schema: {
            type: 'object',
            required: ['results', 'summary'],
            properties: {
              results: { type: 'array', items: { type: 'object' } },
              summary: { type: 'object', properties: { total: { type: 'integer' }, allowed: { type: 'integer' }, flagged: { type: 'integer' }, blocked: { type: 'integer' }, errors: { type: 'integer' } } },
            },
          },
        },
        ...batchErrors,
      },
    },
    async (ctx) => {
      const { inputs } = ctx.state.body as { inputs: unknown[] };
      checkItemCount('inputs', inputs.length);
      const entries = inputs.map((item, i) => {
        const id = item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string' ? (item as { id: string }).id : String(i);
        try {
          checkItem(item, `inputs[${i}]`);
          const body = item as { input?: string; messages?: RawMessage[]; source?: Target; metadata?: Record<string, unknown> };
          return { id, subject: subjectOf(body, systemTurns(), `inputs[${i}]`), metadata: body.metadata };
        } catch (err) {
          const e = err as { message: string; code?: string; param?: string };
          return { id, error: { message: e.message, type: 'invalid_request_error', code: e.code ?? 'invalid_item', param: e.param ?? null } };
        }
      });
      const valid = entries.filter((e): e is { id: string; subject: ScanSubject; metadata: Record<string, unknown> | undefined } => 'subject' in e);
      const records = await scans.service.scanMany(
        valid.map((e) => e.subject),
        who(ctx),
      );
      const byEntry = new Map(valid.map((e, i) => [e, records[i]!]));
      const results = entries.map((e) => ('error' in e ? { id: e.id, error: e.error } : { id: e.id, ...withRedacted(scans.service, byEntry.get(e as (typeof valid)[number])!, 'text' in (e as (typeof valid)[number]).subject ? ((e as (typeof valid)[number]).subject as { text: string }).text : undefined) }));
      const count = (v: string) => records.filter((r) => r.verdict === v).length;
      ctx.body = { results, summary: { total: entries.length, allowed: count('allow'), flagged: count('flag'), blocked: count('block'), errors: entries.length - valid.length } };
    },
  );

  api.add(
    {
      method: 'post',
      path: '/v1/rag/scan',
      operationId: 'ragScan',
      summary: 'Scan retrieved documents for indirect injection; optionally return them with injected segments removed',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'service'],
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['documents'],
        properties: {
          query: { type: 'string', maxLength: MAX_TEXT, description: 'The user query the documents were retrieved for; scanned as a prompt.' },
          documents: {
            type: 'array',
            minItems: 1,
            description: batchLimit,
            'x-max-items-setting': 'limits.batch_max_items',
            'x-max-items': maxItems,
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['content'],
              properties: { id: { type: 'string', maxLength: 200 }, content: { type: 'string', maxLength: MAX_TEXT }, metadata: { type: 'object' } },
            },
          },
          sanitize: { type: 'boolean', default: false, description: 'Also return every document with the sentences holding injected instructions removed (a whole document only when it is the injection as a whole); `removed` lists each cut with its text and rule ids.' },
        },
      },
      responses: {
        '200': {
          description: 'A result per document (in order), the ids of flagged documents, and the sanitised documents when asked.',
          schema: {
            type: 'object',
            required: ['results', 'flagged_ids', 'summary'],
            properties: {
              query: { anyOf: [result, { type: 'null' }] },
              results: { type: 'array', items: { allOf: [result, { type: 'object', properties: { id: { type: 'string' } } }] } },
              flagged_ids: { type: 'array', items: { type: 'string' } },
              documents: {
                type: 'array',
                items: {
                  type: 'object',
                  properties: {
                    id: { type: 'string' },
                    content: { type: 'string' },
                    removed: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['start', 'end', 'text', 'unit', 'rule_ids'],
                        properties: {
                          ...spanSchema.properties,
                          text: { type: 'string', description: 'The removed text.' },
                          unit: { enum: ['sentence', 'document'], description: 'document: nothing smaller carried the injection.' },
                          rule_ids: { type: 'array', items: { type: 'string' }, description: "Rules of the threats behind the cut; 'located' for a sentence flagged when scanned on its own." },
                        },
                      },
                    },
                  },
                },
              },
              summary: { type: 'object' },
            },
          },
        },
        ...batchErrors,
      },
    },
    async (ctx) => {
      const body = ctx.state.body as { query?: string; documents: { id?: string; content: string; metadata?: Record<string, unknown> }[]; sanitize: boolean };
      checkItemCount('documents', body.documents.length);
      const ids = body.documents.map((d, i) => d.id ?? String(i));
      const [query, ...docs] = await Promise.all([
        body.query !== undefined ? scans.service.scan({ text: body.query, target: 'prompt' }, who(ctx)) : Promise.resolve(null),
        ...body.documents.map((d) =>
          scans.service.scan({ text: d.content, target: 'rag' }, who(ctx, d.metadata), body.sanitize ? { action: 'sanitized' } : {}),
        ),
      ]);
      const records = docs as ScanRecord[];
      const probe = (texts: string[]) => scans.service.flaggedOnly(texts, 'rag', who(ctx)); // the caller's policy, as for its records
      const flaggedIds = ids.filter((_, i) => records[i]!.flagged);
      ctx.body = {
        query: query ? withRedacted(scans.service, query, body.query) : null,
        results: records.map((r, i) => ({ id: ids[i], ...withRedacted(scans.service, r, body.documents[i]!.content) })),
        flagged_ids: flaggedIds,
        ...(body.sanitize ? { documents: await Promise.all(body.documents.map(async (d, i) => ({ id: ids[i], ...(await sanitize(d.content, records[i]!, probe)) }))) } : {}),
        summary: { total: records.length, flagged: flaggedIds.length, blocked: records.filter((r) => r.verdict === 'block').length },
      };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/scans',
      operationId: 'listScans',
      summary: 'List scan records, newest first',
      description: 'For `admin` and `analyst`; a `service` credential scans and chats but reads no records (403).',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'analyst'],
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          limit: { type: 'integer', minimum: 1, maximum: 500, default: 50, description: 'Records per page (max 500).' },
          cursor: { type: 'string', maxLength: 200, description: 'next_cursor of the previous page.' },
          verdict: { enum: ['allow', 'flag', 'block'] },
          attack_type: { type: 'string', pattern: '^[a-z_]{1,64}$' },
          severity: { enum: [...SEVERITIES] },
          source: { enum: [...TARGETS] },
          since: { type: 'string', format: 'date-time', description: 'Inclusive lower bound on created_at.' },
          until: { type: 'string', format: 'date-time', description: 'Inclusive upper bound on created_at.' },
        },
      },
      responses: {
        '200': { description: 'A page of records.', schema: { type: 'object', required: ['data', 'next_cursor'], properties: { data: { type: 'array', items: record }, next_cursor: { type: ['string', 'null'] } } } },
        ...protectedErrors,
      },
    },
    async (ctx) => {
      const q = ctx.state.query as unknown as ScanFilter & { limit: number; cursor?: string };
      if (q.since && q.until && q.since > q.until) throw badRequest('since: must not be after until.', 'since');
      // Checked here, for every store: a cursor that decodes to no scan id is a client error, not "the first page".
      if (q.cursor !== undefined && (!/^[A-Za-z0-9_-]+$/.test(q.cursor) || decodeCursor(q.cursor) === null)) {
        throw badRequest('cursor: is not a cursor this API returned; pass next_cursor from the previous page, or leave cursor out for the first page.', 'cursor');
      }
      const filter: ScanFilter = { verdict: q.verdict, attack_type: q.attack_type, severity: q.severity, source: q.source, since: q.since, until: q.until };
      ctx.body = await scans.store.list(filter, q.limit, q.cursor);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/scans/:scan_id',
      operationId: 'getScan',
      summary: 'One scan record',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'analyst'],
      responses: { '200': { description: 'The record.', schema: record }, ...protectedErrors, ...notFoundError },
    },
    async (ctx) => {
      const found = await scans.store.get(ctx.params.scan_id!);
      if (!found) throw notFound(`No scan ${ctx.params.scan_id}.`);
      ctx.body = found;
    },
  );
}
