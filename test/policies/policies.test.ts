import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import type { PolicySpec } from '../../src/config/types.js';
import { applyRules } from '../../src/policies/apply.js';
import { PlaceholderVault, placeholderKind, redactSpans } from '../../src/policies/placeholders.js';
import { PolicyBook, type PolicyConfig } from '../../src/policies/resolve.js';
import { policyProblems } from '../../src/policies/validate.js';
import { redactRequest, restoreCompletion, restoreStream } from '../../src/proxy/redact.js';
import type { EngineThreat } from '../../src/scanning/engine.js';
import type { ChatCompletion, ChatCompletionChunk, ChatRequest } from '../../src/providers/types.js';

const security = { mode: 'enforce', block_severity: 'high', fail_mode: 'closed' } as const;
const book = (policies: Record<string, PolicySpec>, routing: PolicyConfig['policy_routing'] = {}) => new PolicyBook({ security, policies, policy_routing: routing });

const threat = (over: Partial<EngineThreat> = {}): EngineThreat => ({
  attackType: 'pii_exposure',
  severity: 'high',
  confidence: 0.9,
  ruleId: 'pii.iban',
  detector: 'pii',
  message: '1 IBAN found',
  spans: [{ start: 4, end: 26 }],
  ...over,
});
const outcome = (threats: EngineThreat[], failures: { kind: 'detector_error'; detector: string; message: string }[] = []) => ({ threats, riskScore: 0.9, failures });

describe('policies: resolve, validate, apply', () => {
  describe('the built-in default', () => {
    it('is security.* on every target, with PII flagged in prompt and rag and blocked in output', () => {
      const d = book({}).get('default')!;
      const iban = outcome([threat()]);
      expect(applyRules(iban, d.targets.prompt).verdict).to.equal('flag');
      expect(applyRules(iban, d.targets.rag).verdict).to.equal('flag');
      expect(applyRules(iban, d.targets.rag).threats[0]!.action_taken).to.equal('flagged');
      expect(applyRules(iban, d.targets.output).verdict).to.equal('block');
      // Everything else as before: an injection at high blocks everywhere.
      const inj = outcome([threat({ attackType: 'prompt_injection', detector: 'rules', ruleId: 'pi.ignore', spans: [] })]);
      for (const t of ['prompt', 'rag', 'output'] as const) expect(applyRules(inj, d.targets[t]).verdict).to.equal('block');
      expect(d.version).to.match(/^[0-9a-f]{12}$/);
    });

    it('follows security.block_severity, and its version changes with it', () => {
      const a = new PolicyBook({ security, policies: {} }).get('default')!;
      const b = new PolicyBook({ security: { ...security, block_severity: 'critical' }, policies: {} }).get('default')!;
      const inj = outcome([threat({ attackType: 'jailbreak', detector: 'rules', ruleId: 'jb.x', severity: 'high' })]);
      expect(applyRules(inj, a.targets.prompt).verdict).to.equal('block');
      expect(applyRules(inj, b.targets.prompt).verdict).to.equal('flag');
      expect(a.version).to.not.equal(b.version);
    });
  });

  describe('extends and the most specific key', () => {
    const b = book({
      banking: { description: 'agent', rag: { actions: { pii_exposure: 'allow' } } },
      strict: { extends: 'banking', rag: { actions: { 'pii.iban': 'block' } }, block_severity: 'medium' },
      quiet: { thresholds: { classifier: 0.95 }, detectors: ['rules', 'classifier'] },
    });

    it('a child keeps its parent\'s rules and overrides them key by key; rule id beats detector beats attack type', () => {
      const iban = outcome([threat()]);
      expect(applyRules(iban, b.get('banking')!.targets.rag).verdict).to.equal('allow');
      expect(applyRules(iban, b.get('banking')!.targets.rag).threats).to.have.length(0);
      expect(applyRules(iban, b.get('strict')!.targets.rag).verdict).to.equal('block');
      // strict inherits banking's pii_exposure: allow for the kinds it does not name.
      expect(applyRules(outcome([threat({ ruleId: 'pii.card' })]), b.get('strict')!.targets.rag).verdict).to.equal('allow');
      // and default's prompt flag for PII.
      expect(applyRules(iban, b.get('strict')!.targets.prompt).verdict).to.equal('flag');
      // block_severity set policy-wide reaches every target.
      expect(b.get('strict')!.targets.output.block_severity).to.equal('medium');
    });

    it('detectors and thresholds: other detectors\' findings and failures do not count; weak findings are dropped', () => {
      const q = b.get('quiet')!.targets.prompt;
      expect(applyRules(outcome([threat()]), q).verdict).to.equal('allow');
      const weak = threat({ detector: 'classifier', attackType: 'prompt_injection', ruleId: 'classifier.x', confidence: 0.9 });
      expect(applyRules(outcome([weak]), q).verdict).to.equal('allow');
      expect(applyRules(outcome([{ ...weak, confidence: 0.97 }]), q).verdict).to.equal('block');
      expect(applyRules(outcome([], [{ kind: 'detector_error', detector: 'pii', message: 'boom' }]), q)).to.include({ verdict: 'allow', error: null });
      expect(applyRules(outcome([], [{ kind: 'detector_error', detector: 'rules', message: 'boom' }]), q).verdict).to.equal('block');
      // The rules plugin reports under a rule file's name: naming the plugin or the file counts it.
      const ruleHit = threat({ detector: 'prompt-injection', plugin: 'rules', attackType: 'prompt_injection', ruleId: 'pi.ignore', spans: [] });
      expect(applyRules(outcome([ruleHit]), q).verdict).to.equal('block');
      const byFile = book({ f: { detectors: ['prompt-injection'] } }).get('f')!.targets.prompt;
      expect(applyRules(outcome([ruleHit]), byFile).verdict).to.equal('block');
      expect(applyRules(outcome([{ ...ruleHit, detector: 'jailbreak' }]), byFile).verdict).to.equal('allow');
    });

    it('choose: the credential, then the model pin, then the route pin, then default', () => {
      const r = book({ a: {}, m: {}, r: {} }, { models: { 'agent-model': 'm' }, routes: { '/v1/rag/scan': 'r' } });
      expect(r.choose({ credential: 'a', model: 'agent-model', route: '/v1/rag/scan' })).to.deep.include({ source: 'credential' });
      expect(r.choose({ credential: 'a', model: 'agent-model', route: '/v1/rag/scan' }).policy.name).to.equal('a');
      expect(r.choose({ model: 'agent-model', route: '/v1/rag/scan' }).policy.name).to.equal('m');
      expect(r.choose({ route: '/v1/rag/scan' }).policy.name).to.equal('r');
      expect(r.choose({ route: '/v1/scan' }).policy.name).to.equal('default');
      // A credential naming a policy that no longer exists falls through to the pins.
      expect(r.choose({ credential: 'gone', route: '/v1/rag/scan' }).policy.name).to.equal('r');
    });
  });

  describe('redact', () => {
    it('marks the finding sanitized, flags the verdict and lists the spans with their placeholder type, never the value in the message', () => {
      const b = book({ support: { prompt: { actions: { pii_exposure: 'redact', secret_exposure: 'redact' } } } });
      const r = applyRules(
        outcome([
          threat({ ruleId: 'pii.email', spans: [{ start: 0, end: 5 }] }),
          threat({ attackType: 'secret_exposure', detector: 'secrets', ruleId: 'secrets.aws', message: 'AWS key found: AKIA…XY', spans: [{ start: 3, end: 9 }] }),
        ]),
        b.get('support')!.targets.prompt,
      );
      expect(r.verdict).to.equal('flag');
      expect(r.threats.map((t) => t.action_taken)).to.deep.equal(['sanitized', 'sanitized']);
      expect(r.threats[1]!.message).to.not.include('AKIA');
      // Overlapping spans are merged into one.
      expect(r.redact).to.deep.equal([{ start: 0, end: 9, kind: 'EMAIL' }]);
    });

    it('placeholder types and a consistent mapping: one value, one placeholder', () => {
      expect(placeholderKind('pii.email', 'pii_exposure')).to.equal('EMAIL');
      expect(placeholderKind('pii.iban', 'pii_exposure')).to.equal('IBAN');
      expect(placeholderKind('secrets.github-token', 'secret_exposure')).to.equal('SECRET');
      const v = new PlaceholderVault();
      const text = 'a@x.io and b@y.io and a@x.io';
      const out = redactSpans(text, [{ start: 0, end: 6, kind: 'EMAIL' }, { start: 11, end: 17, kind: 'EMAIL' }, { start: 22, end: 28, kind: 'EMAIL' }], v);
      expect(out).to.equal('[EMAIL_1] and [EMAIL_2] and [EMAIL_1]');
      expect(v.restore(out)).to.equal(text);
      expect(v.restore('[EMAIL_3] and [IBAN_1] stay')).to.equal('[EMAIL_3] and [IBAN_1] stay');
    });
  });

  describe('bad input is refused with the key, the value and what was expected', () => {
    const load = (policies: unknown, extra: Record<string, unknown> = {}) => {
      try {
        loadConfig({ raw: { policies, ...extra }, env: {} });
        return null;
      } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as ConfigError).problems.join('\n');
      }
    };

    it('a missing parent', () => {
      expect(load({ a: { extends: 'nope' } })).to.include('policies.a.extends = "nope": no such policy; expected one of default, a');
    });
    it('a circular chain', () => {
      expect(load({ a: { extends: 'b' }, b: { extends: 'a' } })).to.include('policies.a.extends: circular: a -> b -> a');
    });
    it('redact on a detector with no spans, and on output', () => {
      expect(load({ a: { prompt: { actions: { jailbreak: 'redact' } } } })).to.include('policies.a.prompt.actions.jailbreak = "redact": findings of jailbreak have no spans to replace; expected redact only on pii_exposure');
      expect(load({ a: { output: { actions: { pii: 'redact' } } } })).to.include('policies.a.output.actions.pii = "redact": the output target does not support redact');
      expect(load({ a: { actions: { pii_exposure: 'redact' } } })).to.include('a policy-wide action applies to output too');
    });
    it('an unknown action, a bad threshold and a pin naming an unknown policy', () => {
      expect(load({ a: { rag: { actions: { pii: 'hide' } } } })).to.match(/policies\.a\.rag\.actions\.pii.*(block|allowed values)/);
      expect(load({ a: { thresholds: { classifier: 2 } } })).to.match(/policies\.a\.thresholds\.classifier/);
      expect(load({}, { policy_routing: { routes: { '/v1/rag/scan': 'ingest' } } })).to.include('policy_routing.routes./v1/rag/scan = "ingest": no such policy');
    });
    it('a valid section loads and the problems list is empty', () => {
      expect(load({ support: { prompt: { actions: { pii_exposure: 'redact' } } }, ingest: { extends: 'support', rag: { block_severity: 'medium' } } })).to.equal(null);
      expect(policyProblems({ policies: {}, policy_routing: { routes: {}, models: {}, jwt_claim: 'x' } })).to.deep.equal([]);
    });
  });

  describe('the proxy\'s redaction and restoration', () => {
    const EMAIL = 'jane.doe@acme-mail.com';
    const IBAN = 'DE89 3704 0044 0532 0130 00';
    const req: ChatRequest = {
      model: 'm',
      messages: [
        { role: 'system', content: `Known customer: ${EMAIL}` },
        { role: 'user', content: `Mail ${EMAIL}, pay to ${IBAN}, then mail ${EMAIL} again.` },
      ],
    };
    const scans = [{ scan_id: 's', verdict: 'flag' as const, threats: [], redactions: [{ kind: 'EMAIL', value: EMAIL }, { kind: 'IBAN', value: IBAN }] }];

    it('replaces every occurrence in every string, numbered by first appearance, and leaves the model name', () => {
      const r = redactRequest(req, scans)!;
      const sent = JSON.stringify(r.request);
      expect(sent).to.not.include(EMAIL).and.not.include(IBAN);
      expect(r.request.messages[0]!.content).to.equal('Known customer: [EMAIL_1]');
      expect(r.request.messages[1]!.content).to.equal('Mail [EMAIL_1], pay to [IBAN_1], then mail [EMAIL_1] again.');
      expect(r.request.model).to.equal('m');
      expect(redactRequest(req, [{ scan_id: 's', verdict: 'allow', threats: [] }])).to.equal(null);
    });

    it('never hands out a placeholder the request already holds as text, so the user\'s own "[EMAIL_1]" comes back as written', () => {
      const typed: ChatRequest = { model: 'm', messages: [{ role: 'user', content: `Template: Dear [EMAIL_1]. Real: ${EMAIL}` }] };
      const r = redactRequest(typed, [{ scan_id: 's', verdict: 'flag', threats: [], redactions: [{ kind: 'EMAIL', value: EMAIL }] }])!;
      expect(r.request.messages[0]!.content).to.equal('Template: Dear [EMAIL_1]. Real: [EMAIL_2]');
      expect(r.vault.restore('Dear [EMAIL_1], from [EMAIL_2]')).to.equal(`Dear [EMAIL_1], from ${EMAIL}`);
    });

    it('restores a plain completion, leaving placeholders it did not make', () => {
      const r = redactRequest(req, scans)!;
      const c = { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Sent to [EMAIL_1] from [IBAN_1]; [EMAIL_9] is unknown.', refusal: null }, finish_reason: 'stop', logprobs: null }] } as unknown as ChatCompletion;
      expect(restoreCompletion(c, r.vault).choices[0]!.message.content).to.equal(`Sent to ${EMAIL} from ${IBAN}; [EMAIL_9] is unknown.`);
    });

    it('restores a stream cut anywhere into 1-3 character chunks, a placeholder split across chunks restored whole', async () => {
      const r = redactRequest(req, scans)!;
      const answer = 'Sent to [EMAIL_1] from [IBAN_1]; [EMAIL_9] and [x] and [ stay. [EMAIL_1]';
      const expected = `Sent to ${EMAIL} from ${IBAN}; [EMAIL_9] and [x] and [ stay. ${EMAIL}`;
      for (let seed = 1; seed <= 60; seed++) {
        const pieces: string[] = [];
        for (let at = 0, k = seed; at < answer.length; k = (k * 7 + 3) % 11) {
          const n = 1 + (k % 3);
          pieces.push(answer.slice(at, at + n));
          at += n;
        }
        async function* up(): AsyncGenerator<ChatCompletionChunk> {
          for (const [i, p] of pieces.entries()) {
            yield { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: p }, finish_reason: i === pieces.length - 1 ? 'stop' : null }] };
          }
        }
        let got = '';
        for await (const c of restoreStream(up(), r.vault)) got += c.choices.map((ch) => ch.delta.content ?? '').join('');
        expect(got, `pieces ${JSON.stringify(pieces)}`).to.equal(expected);
      }
    });

    it('a stream that ends without a finish still releases the held tail', async () => {
      const r = redactRequest(req, scans)!;
      async function* up(): AsyncGenerator<ChatCompletionChunk> {
        yield { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'to [EMAIL' }, finish_reason: null }] };
      }
      let got = '';
      for await (const c of restoreStream(up(), r.vault)) got += c.choices.map((ch) => ch.delta.content ?? '').join('');
      expect(got).to.equal('to [EMAIL');
    });
  });
});
