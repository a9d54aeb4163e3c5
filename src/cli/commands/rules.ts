/**
 * `warden rules lint PATH` (schema + RE2 compile + unique ids) and `warden rules test PATH`
 * (every rule's own tests through normalise + match). Exit 0 when clean, 1 on any problem,
 * each problem on its own line as FILE:LINE:COL: rule "ID": pattern "P": what is wrong.
 */
import type { Command } from 'commander';
import { formatIssue, loadRuleSet, RuleLoadError, type RuleSet } from '../../scanning/rules/load.js';
import { runRuleTests } from '../../scanning/rules/tests.js';

export interface CliIO {
  out(line: string): void;
  err(line: string): void;
}

export const stdio: CliIO = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

function load(path: string, io: CliIO): RuleSet | null {
  try {
    return loadRuleSet(path);
  } catch (err) {
    if (err instanceof RuleLoadError) {
      for (const issue of err.issues) io.err(formatIssue(issue));
      io.err(`${path}: ${err.issues.length} problem(s)`);
      return null;
    }
    io.err(`${path}: ${(err as Error).message}`);
    return null;
  }
}

export function lintRules(path: string, io: CliIO = stdio): number {
  const set = load(path, io);
  if (set === null) return 1;
  io.out(`${path}: ${set.rules.length} rule(s) in ${set.files.length} file(s) OK (version ${set.version})`);
  return 0;
}

export function testRules(path: string, io: CliIO = stdio): number {
  const set = load(path, io);
  if (set === null) return 1;
  const report = runRuleTests(set);
  for (const f of report.failures) io.err(formatIssue(f));
  const passed = report.cases - report.failures.length;
  const line = `${path}: ${report.cases} test case(s) in ${report.rules} rule(s): ${passed} passed, ${report.failures.length} failed`;
  if (report.failures.length > 0) {
    io.err(line);
    return 1;
  }
  io.out(line);
  return 0;
}

export function register(program: Command): void {
  const rules = program.command('rules').description('Check rule files (rules/*.yaml)');
  rules
    .command('lint')
    .description('Validate rule files: schema, RE2 patterns, unique ids')
    .argument('<path>', 'a rules directory or one rule file')
    .action((path: string) => {
      process.exitCode = lintRules(path);
    });
  rules
    .command('test')
    .description("Run every rule's tests (match / no_match) through normalisation and matching")
    .argument('<path>', 'a rules directory or one rule file')
    .action((path: string) => {
      process.exitCode = testRules(path);
    });
}
