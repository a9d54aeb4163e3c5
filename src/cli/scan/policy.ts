/**
 * `--policy NAME` of `warden scan` (offline) and `warden eval`: the named policy of warden.yaml
 * (docs/policies.md) decides the offline verdicts as the server's scan service does: its
 * detectors are the ones that run, its actions, thresholds, block_severity and fail_mode make
 * the verdict, and a `redact` gives the redacted text beside it. Default: `default`.
 */
import { applyRules } from '../../policies/apply.js';
import { PlaceholderVault, redactSpans } from '../../policies/placeholders.js';
import { PolicyBook, type PolicyConfig } from '../../policies/resolve.js';
import { BUILTIN_POLICY, unknownPolicyProblem } from '../../policies/validate.js';
import type { OfflineResult, TargetDecision } from '../../scanning/offline.js';
import type { Target } from '../../scanning/types.js';

export class UnknownPolicyError extends Error {}

/** How each target's scans are decided under the policy `name` of `config`; UnknownPolicyError when it has none by that name. */
export function policyDecision(name: string | undefined, config: PolicyConfig): (target: Target) => TargetDecision {
  const wanted = name ?? BUILTIN_POLICY;
  const problem = unknownPolicyProblem('--policy', wanted, config);
  if (problem !== null) throw new UnknownPolicyError(problem);
  const policy = new PolicyBook(config).get(wanted)!;
  const byTarget = new Map<Target, TargetDecision>();
  for (const [target, rules] of Object.entries(policy.targets) as [Target, (typeof policy.targets)[Target]][]) {
    byTarget.set(target, {
      ...(rules.detectorList !== null ? { detectors: rules.detectorList } : {}),
      decide(result, text): OfflineResult {
        const { redact, ...verdict } = applyRules(result, rules);
        return redact.length > 0 ? { ...verdict, redacted_text: redactSpans(text, redact, new PlaceholderVault()) } : verdict;
      },
    });
  }
  return (target) => byTarget.get(target)!;
}
