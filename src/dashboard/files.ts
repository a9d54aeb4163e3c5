import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { PROJECT_ROOT } from '../version.js';

/**
 * The dashboard's static files, read from the source tree (src/dashboard/public): plain HTML,
 * CSS and ES modules, so `npm ci && npm start` serves them with no build step, and dist/ holds
 * only compiled TypeScript. Listed once at start: only these names are ever served.
 */
export const PUBLIC_DIR = join(PROJECT_ROOT, 'src', 'dashboard', 'public');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export interface StaticFile {
  type: string;
  body: Buffer;
}

export class DashboardFiles {
  private readonly names: Set<string>;

  constructor(private readonly dir = PUBLIC_DIR) {
    this.names = new Set(readdirSync(dir).filter((n) => TYPES[extname(n)]));
  }

  /** null for any name that is not one of the listed files (no paths, no traversal). */
  get(name: string): StaticFile | null {
    if (!this.names.has(name)) return null;
    // Read per request: small files, and edits show up without a restart.
    return { type: TYPES[extname(name)]!, body: readFileSync(join(this.dir, name)) };
  }
}
