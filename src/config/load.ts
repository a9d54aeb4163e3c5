import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parseDocument, parse as parseYamlScalar } from 'yaml';
import { policyProblems } from '../policies/validate.js';
import { configSchema } from './schema/index.js';
import type { WardenConfig } from './types.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** A configuration that cannot be used. `problems` each name the key, the value and what was expected. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(source: string, problems: string[]) {
    super(`Invalid configuration (${source}):\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadedConfig {
  config: WardenConfig;
  /** The file read, or null when running on embedded defaults. */
  path: string | null;
}

/** Environment variables that are not config keys. */
const RESERVED_ENV = new Set(['WARDEN_CONFIG', 'WARDEN_BOOTSTRAP_KEY', 'WARDEN_LOG_LEVEL']);
const SECRET_KEY = /(secret|password|api_key|private_key|bootstrap_key)/;

const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: true, allowUnionTypes: true });
addFormats(ajv);
const validate = ajv.compile<WardenConfig>(configSchema);

/**
 * Reads warden.yaml (path from the argument or WARDEN_CONFIG; none at all is a valid start),
 * applies WARDEN_<SECTION>__<KEY> environment overrides and `env:NAME` secrets, then validates
 * with the JSON Schema, filling defaults. Throws ConfigError naming every bad key.
 */
export function loadConfig(opts: { path?: string | null; env?: NodeJS.ProcessEnv; raw?: Record<string, unknown> } = {}): LoadedConfig {
  const env = opts.env ?? process.env;
  const path = opts.raw ? null : (opts.path ?? env.WARDEN_CONFIG ?? null);
  const base = path ? resolve(path) : opts.raw ? 'given object' : 'embedded defaults';
  const raw = path ? readYamlFile(resolve(path)) : structuredClone(opts.raw ?? {});
  const problems: string[] = [];

  // Which keys the environment set (key path -> variable name): a bad value names its variable.
  const fromEnv = new Map<string, string>();
  applyEnvOverrides(raw, env, problems, fromEnv);
  const source = fromEnv.size > 0 ? `${base} + environment ${[...fromEnv.values()].join(', ')}` : base;
  resolveEnvSecrets(raw, [], env, problems);
  if (problems.length) throw new ConfigError(source, problems);

  if (!validate(raw)) throw new ConfigError(source, (validate.errors ?? []).map((e) => describe(e, raw) + envNote(e, fromEnv)));
  const config = raw as WardenConfig;
  loadKeyMaterial(config, problems);
  checkAuthConsistency(config, problems);
  problems.push(...policyProblems(config));
  if (problems.length) throw new ConfigError(source, problems);
  return { config, path: path ? resolve(path) : null };
}

function readYamlFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) throw new ConfigError(file, [`the configuration file does not exist: ${file}`]);
  const text = readFileSync(file, 'utf8');
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length) {
    throw new ConfigError(file, doc.errors.map((e) => `YAML syntax error at line ${e.linePos?.[0]?.line ?? '?'}: ${e.message.split('\n')[0]}`));
  }
  const value = doc.toJS() as unknown;
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(file, ['the top level of the file must be a mapping of sections (server:, auth:, security:, ...)']);
  }
  return value as Record<string, unknown>;
}

/** WARDEN_SECURITY__RATE_LIMIT=120 sets security.rate_limit; values are parsed as YAML scalars/flow collections. */
function applyEnvOverrides(target: Record<string, unknown>, env: NodeJS.ProcessEnv, problems: string[], fromEnv: Map<string, string>): void {
  const sections = Object.keys(configSchema.properties);
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('WARDEN_') || RESERVED_ENV.has(name) || value === undefined) continue;
    const path = name.slice('WARDEN_'.length).toLowerCase().split('__');
    if (!sections.includes(path[0]!)) {
      if (path.length > 1) problems.push(`unknown key "${path.join('.')}" (from environment variable ${name}); sections are ${sections.join(', ')}`);
      continue;
    }
    let parsed: unknown = value;
    try {
      parsed = parseYamlScalar(value);
    } catch {
      parsed = value;
    }
    if (parsed === null) parsed = value;
    setPath(target, path, parsed);
    fromEnv.set(path.join('/'), name);
  }
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  path.forEach((segment, i) => {
    if (i === path.length - 1) {
      node[segment] = value;
      return;
    }
    const next = node[segment];
    if (next === null || typeof next !== 'object') node[segment] = /^\d+$/.test(path[i + 1]!) ? [] : {};
    node = node[segment] as Record<string, unknown>;
  });
}

function resolveEnvSecrets(node: unknown, path: string[], env: NodeJS.ProcessEnv, problems: string[]): void {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    const here = [...path, key];
    if (typeof value === 'string' && value.startsWith('env:')) {
      const name = value.slice(4);
      const resolved = env[name];
      if (resolved === undefined || resolved === '') problems.push(`${here.join('.')} = "${value}": environment variable ${name} is not set`);
      else (node as Record<string, unknown>)[key] = resolved;
    } else {
      resolveEnvSecrets(value, here, env, problems);
    }
  }
}

/** PEM values may be given inline or as a path to a file. */
function loadKeyMaterial(config: WardenConfig, problems: string[]): void {
  const jwt = config.auth.jwt;
  for (const field of ['public_key', 'private_key'] as const) {
    const value = jwt[field];
    if (!value || value.includes('-----BEGIN')) continue;
    try {
      jwt[field] = readFileSync(resolve(value), 'utf8');
    } catch {
      problems.push(`auth.jwt.${field} = "${value}": expected a PEM key or the path of a readable PEM file`);
    }
  }
}

function checkAuthConsistency(config: WardenConfig, problems: string[]): void {
  const jwt = config.auth.jwt;
  if (jwt.algorithm === 'RS256' && !jwt.public_key && !jwt.private_key && !jwt.jwks_url) {
    problems.push('auth.jwt.algorithm = "RS256": expected auth.jwt.public_key, auth.jwt.private_key or auth.jwt.jwks_url to be set');
  }
  if (jwt.algorithm === 'HS256' && (jwt.public_key || jwt.jwks_url)) {
    problems.push('auth.jwt.public_key/jwks_url are set but auth.jwt.algorithm = "HS256": expected RS256 with key pairs, or remove them');
  }
  const seen = new Set<string>();
  config.auth.users.forEach((u, i) => {
    if (seen.has(u.username)) problems.push(`auth.users[${i}].username = "${u.username}": expected unique usernames`);
    seen.add(u.username);
  });
  const backend = config.storage.backend;
  if (backend === 'redis' && !config.redis.url) problems.push('storage.backend = "redis": expected redis.url to be set');
  if ((backend === 'memory' || backend === 'sqlite') && config.redis.url) {
    problems.push(`storage.backend = "${backend}" but redis.url is set: with Redis, data lives in Redis; remove storage.backend or redis.url`);
  }
  const { headers_timeout_ms: headers, request_timeout_ms: request } = config.server;
  if (headers > request) problems.push(`server.headers_timeout_ms = ${headers}: expected at most server.request_timeout_ms (${request}); the headers are part of the request`);
  const names = new Set<string>();
  config.providers.forEach((p, i) => {
    if (names.has(p.name)) problems.push(`providers[${i}].name = "${p.name}": expected unique provider names`);
    names.add(p.name);
  });
}

function describe(error: ErrorObject, root: unknown): string {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const key = formatPath(segments);
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    const allowed = Object.keys(schemaAt(segments)?.properties ?? {});
    return `unknown key "${formatPath([...segments, extra])}"${allowed.length ? `: expected one of ${allowed.join(', ')}` : ''}`;
  }
  if (error.keyword === 'required') {
    return `missing key "${formatPath([...segments, (error.params as { missingProperty: string }).missingProperty])}"`;
  }
  const value = valueAt(root, segments);
  const shown = SECRET_KEY.test(key) ? '"[redacted]"' : JSON.stringify(value);
  const expected =
    error.keyword === 'enum'
      ? `expected one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`
      : `expected a value that ${error.message ?? 'is valid'}`.replace('that must be', 'that is').replace('that must', 'that does');
  return `${key || '(top level)'} = ${shown}: ${expected}`;
}

/** " (from environment variable WARDEN_X__Y)" when the bad key (or the section holding it) was set from the environment. */
function envNote(error: ErrorObject, fromEnv: Map<string, string>): string {
  const segments = error.instancePath.split('/').slice(1);
  if (error.keyword === 'additionalProperties') segments.push((error.params as { additionalProperty: string }).additionalProperty);
  for (let n = segments.length; n > 0; n--) {
    const name = fromEnv.get(segments.slice(0, n).join('/'));
    if (name !== undefined) return ` (from environment variable ${name})`;
  }
  return '';
}

function formatPath(segments: string[]): string {
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
}

function valueAt(root: unknown, segments: string[]): unknown {
  return segments.reduce<unknown>((node, s) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[s] : undefined), root);
}

interface SchemaNode { properties?: Record<string, SchemaNode>; items?: SchemaNode; additionalProperties?: SchemaNode | boolean }
function schemaAt(segments: string[]): SchemaNode | undefined {
  let node: SchemaNode | undefined = configSchema as unknown as SchemaNode;
  for (const s of segments) {
    if (!node) return undefined;
    if (/^\d+$/.test(s)) node = node.items;
    else node = node.properties?.[s] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
  }
  return node;
}
