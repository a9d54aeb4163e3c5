import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_PLUGIN_DIR, Engine } from '../../src/scanning/engine.js';
import type { RuleSet } from '../../src/scanning/rules/load.js';

/** Repository root, from dist/test/scanning/. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const FIXTURE_RULES = join(ROOT, 'test/fixtures/rules/basic');
/** Compiled fixture plugins (dist/test/fixtures/plugins). */
export const FIXTURE_PLUGINS = fileURLToPath(new URL('../fixtures/plugins/', import.meta.url));

export function tempDir(prefix = 'warden-scan-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

/** A minimal valid rule in YAML, for tests that build rule files. */
export function ruleYaml(id: string, pattern: string, extra = ''): string {
  return [
    `- id: ${id}`,
    `  title: ${id}`,
    `  attack_type: prompt_injection`,
    `  severity: high`,
    `  confidence: 0.9`,
    `  targets: [prompt]`,
    `  patterns:`,
    `    - '${pattern}'`,
    extra,
  ].filter(Boolean).join('\n') + '\n';
}

/** An engine with every built-in plugin whose rule prefilter is `prefilter` (WARDEN_PREFILTER
 * while it is built, then restored). */
export async function engineWithPrefilter(rules: RuleSet, prefilter: string): Promise<Engine> {
  const before = process.env.WARDEN_PREFILTER;
  process.env.WARDEN_PREFILTER = prefilter;
  try {
    return await Engine.create({ rules, pluginDirs: [BUILTIN_PLUGIN_DIR] });
  } finally {
    if (before === undefined) delete process.env.WARDEN_PREFILTER;
    else process.env.WARDEN_PREFILTER = before;
  }
}
