#!/usr/bin/env node
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.js';

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
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'commands');
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.js')).sort();
  } catch {
    files = [];
  }
  // `warden scan ...` in a CI step loads only the scan modules (scan.js and scan-*.js such as
  // scan-job.js), not the server's, the stores' or the other commands': start-up is paid per call.
  const first = argv[2];
  const own = first !== undefined && !first.startsWith('-') ? files.filter((f) => f === `${first}.js` || f.startsWith(`${first}-`)) : [];
  if (own.length > 0) files = own;
  else (await import('./core-commands.js')).registerCoreCommands(program);
  for (const file of files) {
    const mod = (await import(pathToFileURL(join(dir, file)).href)) as { register?: (p: Command) => void };
    mod.register?.(program);
  }
  await program.parseAsync(argv);
}

main().catch((err: unknown) => {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  if (err instanceof Error && err.name === 'ConfigError') {
    process.stderr.write(`warden: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`warden: ${(err as Error).message}\n`);
  process.exit(1);
});
