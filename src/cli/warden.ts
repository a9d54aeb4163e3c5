#!/usr/bin/env node
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/load.js';
import { VERSION } from '../version.js';
import { registerCoreCommands } from './core-commands.js';

/**
 * The `warden` command. Core commands (serve, keys, hash-password, config) live in
 * core-commands.ts; every module in ./commands/ adds its own (rules, scan, eval...) through
 * `register(program)`, so subsystems bring their commands without editing this file.
 */
export async function main(argv = process.argv): Promise<void> {
  const program = new Command('warden')
    .description('Warden: a security proxy for language-model traffic.')
    .version(VERSION)
    .exitOverride()
    .showHelpAfterError();
  registerCoreCommands(program);
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'commands');
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
  } catch {
    files = [];
  }
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { register?: (p: Command) => void };
    mod.register?.(program);
  }
  await program.parseAsync(argv);
}

main().catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof ConfigError) {
    process.stderr.write(`warden: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`warden: ${(err as Error).message}\n`);
  process.exit(1);
});
