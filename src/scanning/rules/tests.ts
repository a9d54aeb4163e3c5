/**
 * Runs every rule's own `tests: {match, no_match}` through the production path (normalise,
 * then the compiled matcher), so a rule that only works on a hand-lowered string fails here.
 */
import { normalise } from '../normalise/index.js';
import { CompiledRules } from './compile.js';
import type { RuleIssue, RuleSet } from './load.js';

export interface RuleTestReport {
  rules: number;
  cases: number;
  failures: RuleIssue[];
}

export function runRuleTests(ruleSet: RuleSet, compiled: CompiledRules = new CompiledRules(ruleSet)): RuleTestReport {
  const failures: RuleIssue[] = [];
  let cases = 0;
  let rules = 0;
  for (const rule of ruleSet.rules) {
    if (rule.tests === undefined || rule.enabled === false) continue;
    rules++;
    const target = rule.targets[0]!;
    const hits = (text: string): boolean => {
      const input = normalise(text, target, { triage: (t) => compiled.triage(t, target) });
      return compiled.match(input).some((h) => h.ruleId === rule.id);
    };
    for (const text of rule.tests.match ?? []) {
      cases++;
      if (!hits(text)) {
        failures.push({ kind: 'failing_test', path: rule.path, line: rule.line, ruleId: rule.id, message: `expected a match (target ${target}) for ${JSON.stringify(text)}` });
      }
    }
    for (const text of rule.tests.no_match ?? []) {
      cases++;
      if (hits(text)) {
        failures.push({ kind: 'failing_test', path: rule.path, line: rule.line, ruleId: rule.id, message: `expected no match (target ${target}) for ${JSON.stringify(text)}` });
      }
    }
  }
  return { rules, cases, failures };
}
