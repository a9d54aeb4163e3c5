/**
 * Policies (docs/policies.md): what a request pays for its policy and for redaction. A/B in one
 * run, interleaved, p50 of many rounds:
 *  - resolution: the verdict of one scan as before policies (scanning/policy.ts applyPolicy over
 *    security.*) against the same scan through the policy book (resolve the request's policy by
 *    key, model and route, then apply its target's rules). Target: at most 0.05 ms added.
 *  - redaction: a 1 KB prompt with three PII spans, placeholders put in (redactRequest) and the
 *    answer restored (restoreCompletion), against the request as it is. Target: at most 0.2 ms.
 * Run: `npm run bench -- policies` (BENCH_ROUNDS to change the rounds).
 */
import { loadConfig } from '../src/config/load.js';
import { applyRules } from '../src/policies/apply.js';
import { policyBookCache } from '../src/policies/resolve.js';
import { redactRequest, restoreCompletion } from '../src/proxy/redact.js';
import type { ChatCompletion, ChatRequest } from '../src/providers/types.js';
import { applyPolicy } from '../src/scanning/policy.js';
import type { EngineThreat } from '../src/scanning/engine.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20_000);
const BATCH = 20;

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** ms per call of fn, p50 over rounds of BATCH calls; `a` and `b` interleaved so load hits both alike. */
function ab(a: () => unknown, b: () => unknown, rounds: number): { a: number; b: number } {
  const ta: number[] = [];
  const tb: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    for (let i = 0; i < BATCH; i++) a();
    ta.push((performance.now() - t0) / BATCH);
    t0 = performance.now();
    for (let i = 0; i < BATCH; i++) b();
    tb.push((performance.now() - t0) / BATCH);
  }
  return { a: p50(ta), b: p50(tb) };
}

export async function run(): Promise<void> {
  const { config } = loadConfig({
    env: {},
    raw: {
      storage: { backend: 'memory' },
      policies: {
        support: { prompt: { actions: { pii_exposure: 'redact' } }, rag: { actions: { pii_exposure: 'block' } } },
        banking: { rag: { actions: { pii_exposure: 'allow' } } },
        ingest: { extends: 'support', rag: { block_severity: 'medium' } },
      },
      policy_routing: { routes: { '/v1/rag/scan': 'ingest' }, models: { 'agent-model': 'banking' } },
    },
  });
  const threats: EngineThreat[] = [
    { attackType: 'pii_exposure', severity: 'high', confidence: 0.9, ruleId: 'pii.iban', detector: 'pii', message: '1 IBAN found', spans: [{ start: 10, end: 32 }] },
    { attackType: 'prompt_injection', severity: 'medium', confidence: 0.7, ruleId: 'pi.x', detector: 'rules', message: 'x', spans: [] },
  ];
  const outcome = { threats, riskScore: 0.9, failures: [] };
  const books = policyBookCache();
  const legacy = { mode: config.security.mode, block_severity: config.security.block_severity, fail_mode: config.security.fail_mode };
  const res = ab(
    () => applyPolicy(outcome, legacy),
    () => applyRules(outcome, books(config).choose({ credential: 'support', model: 'agent-model', route: '/v1/chat/completions' }).policy.targets.prompt),
    ROUNDS,
  );

  const EMAIL = 'jane.doe@acme-mail.com';
  const IBAN = 'DE89 3704 0044 0532 0130 00';
  const PHONE = '+44 20 7946 0958';
  const filler = 'The order arrived late and the box was damaged; please check the tracking history and advise. ';
  let text = `Hello, I am writing about my refund. My e-mail is ${EMAIL}. `;
  while (text.length < 600) text += filler;
  text += `Please pay it to ${IBAN}. `;
  while (text.length < 950) text += filler.slice(0, 40);
  text += ` Call ${PHONE} if needed.`;
  const req: ChatRequest = { model: 'm', messages: [{ role: 'system', content: 'You are a helpful support agent.' }, { role: 'user', content: text }] };
  const scans = [{ scan_id: 's', verdict: 'flag' as const, threats: [], redactions: [{ kind: 'EMAIL', value: EMAIL }, { kind: 'IBAN', value: IBAN }, { kind: 'PHONE', value: PHONE }] }];
  const answer = (content: string): ChatCompletion => ({ id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, finish_reason: 'stop', logprobs: null }] }) as unknown as ChatCompletion;
  const redacted = redactRequest(req, scans)!;
  const reply = answer(`Thanks, refund sent to [IBAN_1]; confirmation to [EMAIL_1].`);
  const red = ab(
    () => ({ ...req }),
    () => {
      const r = redactRequest(req, scans)!;
      return restoreCompletion(reply, r.vault);
    },
    Math.max(10, Math.floor(ROUNDS / 4)),
  );

  console.log('\n## policies (p50 ms per request, A/B interleaved in one run)\n');
  console.log('| what | before | with policies | added | target |');
  console.log('|---|---|---|---|---|');
  console.log(`| policy resolution + apply (one scan) | ${res.a.toFixed(5)} | ${res.b.toFixed(5)} | ${(res.b - res.a).toFixed(5)} | ≤ 0.05 |`);
  console.log(`| redaction of a ${text.length}-char prompt, 3 spans, + restore | ${red.a.toFixed(5)} | ${red.b.toFixed(5)} | ${(red.b - red.a).toFixed(5)} | ≤ 0.2 |`);
  console.log(`\n(the redacted prompt holds ${(JSON.stringify(redacted.request).match(/\[(EMAIL|IBAN|PHONE)_1\]/g) ?? []).length} placeholders)`);
}
