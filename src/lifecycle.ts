import type { Server } from 'node:http';
import type { WardenConfig } from './config/types.js';

/** Lifecycle hooks of the composition root (src/server.ts) that subsystems register while being wired. */
export interface Lifecycle {
  /** Called after a reload was validated and applied, with the effective configuration. */
  onReload(fn: (config: WardenConfig) => void | Promise<void>): void;
  /** Called when a reload was refused (the running configuration stays), with why. */
  onReloadFailed(fn: (error: string) => void | Promise<void>): void;
  /** Called on shutdown, last registered first, after the listener stopped accepting. */
  onShutdown(fn: () => void | Promise<void>): void;
  /** Called once the listener is up. */
  onReady(fn: (server: Server) => void | Promise<void>): void;
}
