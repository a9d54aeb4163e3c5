import { Redis } from 'ioredis';
import type { Command } from 'commander';
import { RedisApiKeyStore, type ApiKeyStore } from '../auth/api-keys.js';
import { hashPassword } from '../auth/passwords.js';
import { loadConfig } from '../config/load.js';
import { ROLES, type Role, type WardenConfig } from '../config/types.js';
import { log } from '../log.js';
import { unknownPolicyProblem } from '../policies/validate.js';
import { storageBackendOf } from '../storage/index.js';
import { openDatabase } from '../storage/sqlite/database.js';
import { moveLegacyStore } from '../storage/sqlite/legacy-location.js';
import { SqliteApiKeyStore } from '../storage/sqlite/keys.js';
import { WriteQueue } from '../storage/sqlite/writer.js';

export function registerCoreCommands(program: Command): void {
  program
    .command('serve')
    .description('Start the Warden server (no config file: SQLite in ./var/warden.db, default rules, an admin key and a dashboard login printed once).')
    .option('-c, --config <file>', 'warden.yaml (default: $WARDEN_CONFIG, else embedded defaults)')
    .action(async (opts: { config?: string }) => {
      const { config, path } = loadConfig({ path: opts.config });
      // Loaded here, not at the top: other commands (`warden scan --server` in a CI step) start without the server's modules.
      const { startServer } = await import('../server.js');
      await startServer({ config, configPath: path, handleSignals: true });
    });

  program
    .command('config')
    .description('Configuration tools.')
    .command('check')
    .description('Validate a configuration file (and WARDEN_* overrides) without starting; exit 2 when invalid.')
    .option('-c, --config <file>', 'warden.yaml (default: $WARDEN_CONFIG)')
    .action((opts: { config?: string }) => {
      const { path } = loadConfig({ path: opts.config });
      process.stdout.write(`configuration OK (${path ?? 'embedded defaults'})\n`);
    });

  program
    .command('hash-password')
    .description('Read a password from stdin and print its scrypt hash for auth.users[].password_hash.')
    .action(async () => {
      const password = (await readStdin()).replace(/\r?\n$/, '');
      if (!password) throw new Error('no password on stdin: echo -n "..." | warden hash-password');
      process.stdout.write(`${await hashPassword(password)}\n`);
    });

  const keys = program.command('keys').description('Manage API keys: on a running server (--url), or directly in the configured store (the SQLite file, or Redis when redis.url is set).');
  const target = (cmd: Command) =>
    cmd
      .option('--url <url>', 'a running Warden (uses the HTTP API with an admin key)')
      .option('--admin-key <key>', 'admin API key for --url (default: $WARDEN_ADMIN_KEY)')
      .option('-c, --config <file>', 'warden.yaml whose store (storage.sqlite_path or redis.url) holds the keys');

  target(keys.command('create').description('Create a key; prints the secret once.'))
    .requiredOption('--name <name>', 'what the key is for')
    .option('--role <role>', `one of ${ROLES.join(', ')}`, 'service')
    .option('--expires-at <iso>', 'expiry date-time (ISO 8601)')
    .option('--rate-limit <n>', 'requests per minute for this key')
    .option('--policy <name>', 'the policy its requests get (a name from `policies`; docs/policies.md)')
    .action(async (opts: KeyOpts & { name: string; role: string; expiresAt?: string; rateLimit?: string; policy?: string }) => {
      if (!ROLES.includes(opts.role as Role)) throw new Error(`--role must be one of ${ROLES.join(', ')}`);
      const rateLimit = opts.rateLimit === undefined ? null : Number(opts.rateLimit);
      if (rateLimit !== null && (!Number.isInteger(rateLimit) || rateLimit < 1)) throw new Error('--rate-limit must be a positive integer');
      if (opts.expiresAt && Number.isNaN(Date.parse(opts.expiresAt))) throw new Error('--expires-at must be an ISO 8601 date-time');
      const input = { name: opts.name, role: opts.role as Role, expires_at: opts.expiresAt ? new Date(opts.expiresAt).toISOString() : null, rate_limit: rateLimit, ...(opts.policy ? { policy: opts.policy } : {}) };
      const created = await withKeys(opts, {
        http: (call) => call('POST', '/v1/keys', input),
        store: async (store, config) => {
          checkPolicy('--policy', opts.policy, config);
          const { key, secret } = await store.create(input);
          return { ...key, key: secret };
        },
      });
      process.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
    });

  target(keys.command('list').description('List keys (never their secrets).')).action(async (opts: KeyOpts) => {
    const listed = await withKeys(opts, {
      http: async (call) => ((await call('GET', '/v1/keys')) as { data: unknown[] }).data,
      store: (store) => store.list(),
    });
    process.stdout.write(`${JSON.stringify(listed, null, 2)}\n`);
  });

  target(keys.command('set-policy').description('Set the policy a key\'s requests get ("none" clears it).').argument('<id>', 'key id (key_...)').argument('<policy>', 'a name from `policies`, or none'))
    .action(async (id: string, name: string, opts: KeyOpts) => {
      const policy = name === 'none' ? null : name;
      const changed = await withKeys(opts, {
        http: (call) => call('PATCH', `/v1/keys/${encodeURIComponent(id)}`, { policy }),
        store: async (store, config) => {
          checkPolicy('<policy>', policy ?? undefined, config);
          const r = await store.setPolicy(id, policy);
          if (!r) throw new Error(`no API key ${id}`);
          return r;
        },
      });
      process.stdout.write(`${JSON.stringify(changed, null, 2)}\n`);
    });

  target(keys.command('revoke').description('Revoke a key by id.').argument('<id>', 'key id (key_...)')).action(async (id: string, opts: KeyOpts) => {
    const revoked = await withKeys(opts, {
      http: (call) => call('DELETE', `/v1/keys/${encodeURIComponent(id)}`),
      store: async (store) => {
        const r = await store.revoke(id);
        if (!r) throw new Error(`no API key ${id}`);
        return r;
      },
    });
    process.stdout.write(`${JSON.stringify(revoked, null, 2)}\n`);
  });
}

interface KeyOpts {
  url?: string;
  adminKey?: string;
  config?: string;
}

type HttpCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** Working on the store directly, a key may name only a policy the configuration defines (the server checks it over --url). */
function checkPolicy(flag: string, policy: string | undefined, config: WardenConfig): void {
  const problem = policy === undefined ? null : unknownPolicyProblem(flag, policy, config);
  if (problem) throw new Error(problem);
}

async function withKeys<T>(opts: KeyOpts, via: { http: (call: HttpCall) => Promise<T>; store: (store: ApiKeyStore, config: WardenConfig) => Promise<T> }): Promise<T> {
  if (opts.url) {
    const adminKey = opts.adminKey ?? process.env.WARDEN_ADMIN_KEY;
    if (!adminKey) throw new Error('--url needs --admin-key or $WARDEN_ADMIN_KEY');
    const base = opts.url.replace(/\/$/, '');
    return via.http(async (method, path, body) => {
      const res = await fetch(base + path, {
        method,
        headers: { 'X-API-Key': adminKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = (await res.json()) as { error?: { message: string } };
      if (!res.ok) throw new Error(`${res.status}: ${json.error?.message ?? 'request failed'}`);
      return json;
    });
  }
  const { config } = loadConfig({ path: opts.config });
  const backend = storageBackendOf(config);
  if (backend === 'sqlite') {
    // Next to a running server too: SQLite orders the two writers, and the server reads keys from the file on every request.
    moveLegacyStore(config.storage.sqlite_path, log);
    const opened = openDatabase(config.storage.sqlite_path, { role: 'tool' });
    try {
      const writer = new WriteQueue(opened.db, opened.file, { failed: (store, err) => log.error({ store, err: err.message }, 'write failed'), recovered: () => undefined });
      return await via.store(new SqliteApiKeyStore(opened.db, writer), config);
    } finally {
      opened.close();
    }
  }
  if (!config.redis.url) {
    throw new Error('keys live in the running server with storage.backend memory: pass --url http://host:port --admin-key svc_..., or use the SQLite store or redis.url');
  }
  const redis = new Redis(config.redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    return await via.store(new RedisApiKeyStore(redis, config.redis.key_prefix), config);
  } finally {
    redis.disconnect();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
