import type { Redis } from 'ioredis';
import type { PolicySpec, WardenConfig } from '../config/types.js';
import type { Severity } from '../scanning/types.js';
import { log } from '../log.js';

/** Settings an admin may change at run time (the dashboard's settings page). */
export interface RuntimeSettings {
  rate_limit?: number;
  mode?: 'enforce' | 'monitor';
  block_severity?: Severity;
  /** Replaces warden.yaml's `policies` section as a whole (docs/policies.md). */
  policies?: Record<string, PolicySpec>;
}
export const SETTING_KEYS = ['rate_limit', 'mode', 'block_severity', 'policies'] as const;

/**
 * Overrides on top of warden.yaml. Memory: this instance only, until it stops. SQLite: this instance, kept across restarts. Redis: one hash every instance
 * reads at start, and a pub/sub channel that tells every instance to re-read it at once.
 */
export interface SettingsStore {
  load(): Promise<RuntimeSettings>;
  /** Applies a patch (null clears an override); resolves with the new overrides. */
  update(patch: { [K in keyof RuntimeSettings]?: RuntimeSettings[K] | null }): Promise<RuntimeSettings>;
  /** Called with the new overrides whenever they change, here or on another instance. */
  onChange(listener: (settings: RuntimeSettings) => void): void;
  close(): Promise<void>;
}

export function applySettings(config: WardenConfig, s: RuntimeSettings): WardenConfig {
  if (!Object.keys(s).length) return config;
  const { policies, ...security } = s;
  return { ...config, security: { ...config.security, ...security }, ...(policies !== undefined ? { policies } : {}) };
}

/** A patch applied to the current overrides (null clears one). */
export function mergeSettings(current: RuntimeSettings, patch: Record<string, unknown>): RuntimeSettings {
  const next: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete next[k];
    else if (v !== undefined) next[k] = v;
  }
  return next as RuntimeSettings;
}

export class MemorySettingsStore implements SettingsStore {
  private current: RuntimeSettings = {};
  private readonly listeners: ((s: RuntimeSettings) => void)[] = [];

  async load() {
    return { ...this.current };
  }
  async update(patch: Record<string, unknown>) {
    this.current = mergeSettings(this.current, patch);
    for (const l of this.listeners) l({ ...this.current });
    return { ...this.current };
  }
  onChange(listener: (s: RuntimeSettings) => void) {
    this.listeners.push(listener);
  }
  async close() {}
}

export class RedisSettingsStore implements SettingsStore {
  private readonly listeners: ((s: RuntimeSettings) => void)[] = [];
  private subscriber: Redis | null = null;
  private readonly key: string;

  constructor(private readonly redis: Redis, prefix: string) {
    this.key = `${prefix}settings`;
  }

  async load(): Promise<RuntimeSettings> {
    const raw = await this.redis.get(this.key);
    return raw ? (JSON.parse(raw) as RuntimeSettings) : {};
  }

  /** Read-modify-write inside WATCH/MULTI, so two admins changing different keys both win. */
  async update(patch: Record<string, unknown>): Promise<RuntimeSettings> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const conn = this.redis.duplicate({ enableOfflineQueue: true, lazyConnect: false });
      try {
        await conn.watch(this.key);
        const raw = await conn.get(this.key);
        const next = mergeSettings(raw ? (JSON.parse(raw) as RuntimeSettings) : {}, patch);
        const ok = await conn.multi().set(this.key, JSON.stringify(next)).publish(this.key, JSON.stringify(next)).exec();
        if (ok) {
          for (const l of this.listeners) l(next);
          return next;
        }
      } finally {
        conn.disconnect();
      }
    }
    throw new Error('settings changed concurrently too often; try again');
  }

  onChange(listener: (s: RuntimeSettings) => void): void {
    this.listeners.push(listener);
    if (this.subscriber) return;
    const sub = this.redis.duplicate({ enableOfflineQueue: true });
    this.subscriber = sub;
    sub.on('error', (err: Error) => log.warn({ err: err.message }, 'settings subscriber error'));
    sub.on('message', (_channel: string, message: string) => {
      try {
        const next = JSON.parse(message) as RuntimeSettings;
        for (const l of this.listeners) l(next);
      } catch {
        log.warn('ignored a malformed settings message');
      }
    });
    // Re-read after every (re)subscribe: a change published while disconnected is not lost.
    sub.on('ready', () => {
      void this.load().then((s) => this.listeners.forEach((l) => l(s)), () => undefined);
    });
    void sub.subscribe(this.key).catch((err: Error) => log.warn({ err: err.message }, 'settings subscribe failed'));
  }

  async close(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
