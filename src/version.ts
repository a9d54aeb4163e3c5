import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

/** Root of the installed project (works from src/ under tsc's dist/ layout). */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const VERSION: string = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
