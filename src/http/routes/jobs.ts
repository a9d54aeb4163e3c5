import { Readable } from 'node:stream';
import { callerId } from '../../auth/principal.js';
import { linesOf, linesOfFiles, resolveFiles } from '../../jobs/inputs.js';
import type { JobService } from '../../jobs/service.js';
import { jobView } from '../../jobs/view.js';
import type { Target } from '../../scanning/types.js';
import type { Services } from '../../services.js';
import type { Api } from '../api.js';
import { badRequest, tooLarge, unsupportedMediaType } from '../errors.js';
import { errorResponse, notFoundError, protectedErrors } from './schemas.js';

/** Media types of a streamed JSONL upload (the JSON body stage leaves these to the route). */
export const NDJSON_TYPES = ['application/x-ndjson', 'application/jsonl', 'application/x-jsonlines'];

const jobSchema = {
  type: 'object',
  required: ['id', 'state', 'counts', 'eta_seconds'],
  properties: {
    id: { type: 'string', pattern: '^job_[0-9a-z]{26}$' },
    object: { const: 'scan_job' },
    state: { enum: ['queued', 'running', 'done', 'failed', 'cancelled'] },
    source: { enum: ['prompt', 'rag', 'output'] },
    counts: {
      type: 'object',
      properties: { total: { type: ['integer', 'null'] }, scanned: { type: 'integer' }, flagged: { type: 'integer' }, blocked: { type: 'integer' }, errors: { type: 'integer' } },
    },
    docs_per_second: { type: ['number', 'null'] },
    eta_seconds: { type: ['number', 'null'], description: 'Estimated seconds left (0 once finished; null before the first result).' },
    results_url: { type: 'string' },
  },
};

const idParam = (id: string | undefined) => {
  if (!id || !/^job_[0-9a-z]{26}$/.test(id)) throw badRequest(`id: ${JSON.stringify(id ?? '')} is not a scan job id (job_ followed by 26 characters).`, 'id', 'invalid_job_id');
  return id;
};

export function registerJobRoutes(api: Api, services: Services, jobs: JobService): void {
  const job = api.component('ScanJob', jobSchema);
  const checkFilesBody = api.bodyValidator({
    type: 'object',
    additionalProperties: false,
    required: ['files'],
    properties: {
      files: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', minLength: 1, maxLength: 4096 } },
      source: { enum: ['prompt', 'rag'] },
    },
  });

  api.add(
    {
      method: 'post',
      path: '/v1/scan/jobs',
      operationId: 'createScanJob',
      summary: 'Start a scan job over many documents; it outlives the request and the instance that accepted it',
      description:
        'Documents inline as `application/x-ndjson` (one `{"id", "input", "source"?}` per line; streamed, `Content-Encoding: gzip` allowed, up to jobs.max_bytes and jobs.max_documents), ' +
        'or a JSON body `{"files": ["file:///..."]}` naming JSONL files under jobs.files_dir. A malformed line becomes an error result for that line. docs/jobs.md.',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'service'],
      query: { type: 'object', additionalProperties: false, properties: { source: { enum: ['prompt', 'rag'], default: 'prompt', description: 'Target of lines without their own source.' } } },
      responses: {
        '202': { description: 'Accepted and queued.', schema: job },
        ...protectedErrors,
        '413': errorResponse('Over jobs.max_bytes or jobs.max_documents (the message names the limit).'),
        '503': errorResponse('The queue (Kafka) is unreachable: nothing was accepted (code job_queue_unavailable).'),
      },
    },
    async (ctx) => {
      const j = services.config().jobs;
      let source = (ctx.state.query as { source: Target }).source;
      let lines: AsyncIterable<string[]>;
      if (NDJSON_TYPES.includes(ctx.request.type)) {
        const length = ctx.request.length;
        if (length !== undefined && length > j.max_bytes) throw tooLarge(`The upload is ${length} bytes; the limit is ${j.max_bytes} bytes (jobs.max_bytes).`);
        const encoding = ctx.get('content-encoding').trim().toLowerCase() || 'identity';
        if (!['identity', 'gzip', 'x-gzip'].includes(encoding)) throw unsupportedMediaType(`Content-Encoding "${encoding}" is not supported for a job upload; send identity or gzip.`);
        lines = linesOf(ctx.req, { maxBytes: j.max_bytes, gzip: encoding !== 'identity', what: 'The upload' });
      } else if (ctx.state.body !== undefined) {
        checkFilesBody(ctx.state.body, '');
        const body = ctx.state.body as { files: string[]; source?: Target };
        if (body.source) source = body.source;
        lines = linesOfFiles(resolveFiles(body.files, j.files_dir), j.max_bytes);
      } else {
        throw badRequest('Send the documents as application/x-ndjson (one {"id", "input"} per line), or a JSON body {"files": ["file:///..."]}.', undefined, 'missing_body');
      }
      try {
        const accepted = await jobs.submit(lines, { source, caller: callerId(ctx.state.principal!) });
        ctx.status = 202;
        ctx.set('Location', `/v1/scan/jobs/${accepted.id}`);
        ctx.body = jobView(accepted);
      } catch (err) {
        // Refused mid-upload: read and drop the rest so the answer reaches the client.
        if (!ctx.req.readableEnded) {
          ctx.set('Connection', 'close');
          ctx.req.resume();
        }
        throw err;
      }
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/scan/jobs',
      operationId: 'listScanJobs',
      summary: 'Scan jobs, newest first',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'analyst', 'service'],
      query: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 } } },
      responses: { '200': { description: 'Jobs.', schema: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: job } } } }, ...protectedErrors },
    },
    async (ctx) => {
      const { limit } = ctx.state.query as { limit: number };
      ctx.body = { data: (await jobs.list(limit)).map((x) => jobView(x)) };
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/scan/jobs/:id',
      operationId: 'getScanJob',
      summary: 'A scan job: state, counts, rate and time left',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'analyst', 'service'],
      responses: { '200': { description: 'The job.', schema: job }, ...protectedErrors, ...notFoundError },
    },
    async (ctx) => {
      ctx.body = jobView(await jobs.get(idParam(ctx.params.id)));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/v1/scan/jobs/:id/results',
      operationId: 'getScanJobResults',
      summary: 'The results as NDJSON, one line per document in input order; resumable with cursor',
      description:
        'Each line: `index` (input position), `id`, the verdict fields of /v1/scan/batch (or `error`), `instance_id` (who scanned it) and `chunk`. ' +
        'While the job runs the stream stops at the first document without a result; continue with `cursor` = last index + 1. Header Warden-Job-State says the state when the stream began.',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'analyst', 'service'],
      query: {
        type: 'object',
        additionalProperties: false,
        properties: {
          cursor: { type: 'integer', minimum: 0, default: 0, description: 'Input index to start from.' },
          limit: { type: 'integer', minimum: 1, maximum: 10000000, default: 10000000 },
        },
      },
      responses: { '200': { description: 'application/x-ndjson' }, ...protectedErrors, ...notFoundError },
    },
    async (ctx) => {
      const id = idParam(ctx.params.id);
      const { cursor, limit } = ctx.state.query as { cursor: number; limit: number };
      const found = await jobs.get(id);
      const gen = jobs.results(id, cursor, limit);
      // The first page is read before the answer starts, so a store that cannot serve the results
      // (a damaged row) is an error response rather than a stream cut short.
      const first = await gen.next();
      ctx.status = 200;
      ctx.type = 'application/x-ndjson';
      ctx.set('Warden-Job-State', found.state);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = Readable.from((async function* () {
        if (first.done) return;
        yield first.value.join('\n') + '\n';
        for await (const page of gen) yield page.join('\n') + '\n';
      })());
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/v1/scan/jobs/:id',
      operationId: 'cancelScanJob',
      summary: 'Cancel a queued or running scan job; every instance skips its remaining chunks',
      tags: ['scan'],
      auth: true,
      roles: ['admin', 'service'],
      responses: { '200': { description: 'The job, cancelled.', schema: job }, ...protectedErrors, ...notFoundError, '409': errorResponse('Already done or failed.') },
    },
    async (ctx) => {
      ctx.body = jobView(await jobs.cancel(idParam(ctx.params.id)));
    },
  );
}
