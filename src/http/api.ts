import Router from '@koa/router';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Role } from '../config/types.js';
import { log } from '../log.js';
import { badRequest } from './errors.js';
import { requireRole } from './middleware/auth.js';
import type { WardenContext } from './state.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export type JsonSchema = Record<string, unknown>;

export interface ResponseSpec {
  description: string;
  schema?: JsonSchema;
  /** Default application/json. */
  contentType?: string;
}

/**
 * One REST operation. The same `body` and `query` schemas validate requests at run time and
 * describe them in /openapi.json, so the documentation cannot drift from the code.
 */
export interface Operation {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Koa style: /v1/scans/:scan_id */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** true: authenticated and rate limited (every /v1 route but login/logout). */
  auth: boolean;
  roles?: Role[];
  body?: JsonSchema;
  /** An object schema whose properties are the query parameters. */
  query?: JsonSchema;
  responses: Record<string, ResponseSpec>;
  /** Leave out of /openapi.json (the dashboard's static files). */
  hidden?: boolean;
}

export type Handler = (ctx: WardenContext) => unknown | Promise<unknown>;

/** ajv's notices go to the structured log, except its note that `unicode` is deprecated: that
 * option is chosen on purpose (below) and ajv 8 still honours it. */
const AJV_LOGGER = {
  log: (): void => {},
  warn: (...args: unknown[]): void => {
    const message = args.join(' ');
    if (!message.startsWith('DEPRECATED: option unicode')) log.warn({ component: 'ajv' }, message);
  },
  error: (...args: unknown[]): void => log.error({ component: 'ajv' }, args.join(' ')),
};

export class Api {
  /** Case-sensitive: `/V1/KEYS` is no route (docs/api.md, "Paths"). */
  readonly router = new Router({ sensitive: true });
  readonly operations: Operation[] = [];
  // `unicode: false`: maxLength/minLength count UTF-16 code units (String.length), in O(1), the
  // unit of the scan pool's own input limit. Counted in code points, a text of 524,289-1,048,576
  // characters outside the BMP passed validation and then failed in the pool as a 500, and every
  // text to scan was walked on the event loop (~2% of /v1/scan's main-thread time for 1 KB).
  private readonly bodyAjv = new Ajv({ allErrors: false, strict: false, useDefaults: true, unicode: false, logger: AJV_LOGGER });
  private readonly queryAjv = new Ajv({ allErrors: false, strict: false, useDefaults: true, coerceTypes: 'array', unicode: false, logger: AJV_LOGGER });
  /** Shared component schemas (referenced as #/components/schemas/Name). */
  readonly components: Record<string, JsonSchema> = {};

  constructor() {
    addFormats(this.bodyAjv);
    addFormats(this.queryAjv);
    memoizeMatch(this.router);
  }

  /** Registers a schema both validators and the OpenAPI document can reference by name. */
  component(name: string, schema: JsonSchema): { $ref: string } {
    this.components[name] = schema;
    const withId = { ...schema, $id: `#/components/schemas/${name}` };
    this.bodyAjv.addSchema(withId, `#/components/schemas/${name}`);
    this.queryAjv.addSchema(withId, `#/components/schemas/${name}`);
    return { $ref: `#/components/schemas/${name}` };
  }

  /**
   * A body validator with the same options and error text as a route's own body, for parts a
   * route checks one by one (a batch item): throws the 400 a body would get, its field named
   * under `at` (e.g. `inputs[3].messages[0].role`).
   */
  bodyValidator(schema: JsonSchema): (value: unknown, at: string) => void {
    const validate = this.bodyAjv.compile(schema);
    return (value, at) => check(validate, value, 'body', at);
  }

  add(op: Operation, handler: Handler): void {
    this.operations.push(op);
    const validateBody = op.body ? this.bodyAjv.compile(op.body) : null;
    const validateQuery = op.query ? this.queryAjv.compile(op.query) : null;
    const stack = [
      ...(op.roles ? [requireRole(...op.roles)] : []),
      async (ctx: WardenContext) => {
        if (validateQuery) {
          const query = { ...ctx.query } as Record<string, unknown>;
          check(validateQuery, query, 'query');
          ctx.state.query = query;
        }
        if (validateBody) {
          if (ctx.state.body === undefined) throw badRequest('A JSON request body is required.', undefined, 'missing_body');
          check(validateBody, ctx.state.body, 'body');
        }
        await handler(ctx);
      },
    ];
    (this.router[op.method] as (path: string, ...mw: unknown[]) => Router).call(this.router, op.path, ...stack);
  }

  /** /v1 paths that need no credential (login, logout). */
  publicPaths(): Set<string> {
    return new Set(this.operations.filter((o) => !o.auth && o.path.startsWith('/v1/')).map((o) => o.path));
  }
}

type MatchResult = ReturnType<Router['match']>;
const MAX_MATCH_CACHE = 1024;

/**
 * The router tests every route against every request (and, through its `debug` calls, allocates
 * an argument array per route per request: several KB of garbage per request with this API).
 * The answer depends only on the method, the path and the routes, so it is remembered per
 * method and path (at most MAX_MATCH_CACHE paths per method, forgotten when a route is added).
 * Each request gets its own `path` array, since the router stores it on the context.
 */
function memoizeMatch(router: Router): void {
  const match = router.match.bind(router);
  const cache = new Map<string, Map<string, MatchResult>>();
  let routes = router.stack.length;
  router.match = (path: string, method: string): MatchResult => {
    if (router.stack.length !== routes) {
      cache.clear();
      routes = router.stack.length;
    }
    let byPath = cache.get(method);
    if (byPath === undefined) cache.set(method, (byPath = new Map()));
    let found = byPath.get(path);
    if (found === undefined) {
      found = match(path, method);
      if (byPath.size >= MAX_MATCH_CACHE) byPath.clear();
      byPath.set(path, found);
    }
    return { path: found.path.slice(), pathAndMethod: found.pathAndMethod, route: found.route };
  };
}

function check(validate: ValidateFunction, value: unknown, where: 'body' | 'query', at = ''): void {
  if (validate(value)) return;
  const error = validate.errors![0]!;
  const field = fieldOf(error, where, at);
  throw badRequest(`${field}: ${explain(error)}.`, field, where === 'body' ? 'invalid_body' : 'invalid_query');
}

function fieldOf(error: ErrorObject, where: string, at: string): string {
  const segments = error.instancePath.split('/').slice(1);
  if (error.keyword === 'required') segments.push((error.params as { missingProperty: string }).missingProperty);
  if (error.keyword === 'additionalProperties') segments.push((error.params as { additionalProperty: string }).additionalProperty);
  const path = segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), at);
  return path || where;
}

function explain(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a known field';
    case 'enum':
      return `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `must be of type ${(error.params as { type: string }).type}`;
    default:
      return error.message ?? 'is invalid';
  }
}
