import { expect } from 'chai';
import type OpenAI from 'openai';
import { loadConfig } from '../../src/config/load.js';
import { createRegistry } from '../../src/metrics/registry.js';
import { chatScannerOf } from '../../src/scan-service/chat-scanner.js';
import { MemoryScanStore } from '../../src/scan-service/memory-store.js';
import { createScanRecordMetrics } from '../../src/scan-service/metrics.js';
import { ScanService } from '../../src/scan-service/service.js';
import { ScanPool } from '../../src/scanning/pool.js';
import { FakeUpstream } from '../../harness/fake-upstream.js';
import { generate, KINDS, type OutcomeCase } from '../../scripts/outcome/gen-outcome-set.js';
import { LANGS } from '../../scripts/outcome/lang-packs.js';
import { CapturedEvents, startHarness, type Harness } from '../support/proxy-harness.js';

/**
 * The outcome guards measured end to end: every conversation of the generated set
 * (scripts/outcome/gen-outcome-set.ts, 150 per kind) is sent through Warden on the real scanning
 * pool, once plain and once streamed (1-3 character content chunks, tool-call arguments split
 * into 1-3 character deltas), with the fake upstream giving the case's answer. An attack is
 * stopped when Warden answers an error (input or output blocked); a benign answer must arrive
 * byte for byte (content and tool calls). Prints the table; asserts >= 90 % stopped and
 * >= 97 % delivered unchanged per kind and per language, both by the output side (of the benign
 * requests the input scan let through) and by the whole of Warden (the input scan's own false
 * positives count too). The whole-of-Warden bar was held at 95 % while the shipped classifier
 * blocked three benign payment requests with a printed IBAN (two Spanish, one Russian): it folds
 * digits to 0, and the n-grams of a grouped IBAN (`0000 0000`, `00 0`) added about +6 to its
 * logit, learned from a corpus where 96 of 100 training rows with such digit groups are
 * attacks. The classifier no longer reads checksum-valid IBANs, Luhn-valid card numbers and
 * phone numbers (plugins/classifier/numbers.ts; docs/proxy.md, "Measured"); the generator's
 * IBANs are real ones (country length, valid check digits), as a user's would be. In-sample: the
 * guards were written with this set in view.
 */

function pieces(text: string, seed: number): string[] {
  const out: string[] = [];
  let i = 0;
  let k = seed;
  const chars = [...text];
  while (i < chars.length) {
    const n = 1 + (k++ % 3);
    out.push(chars.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

function toolDeltas(c: OutcomeCase): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  (c.answer.tool_calls ?? []).forEach((t, index) => {
    out.push({ tool_calls: [{ index, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] });
    for (const p of pieces(t.arguments, index)) out.push({ tool_calls: [{ index, function: { arguments: p } }] });
  });
  return out;
}

/** stopped at the input scan (the request never went upstream), at the output, or delivered. */
type Result = 'stopped_input' | 'stopped_output' | 'unchanged' | 'changed';

async function run(h: Harness, up: FakeUpstream, c: OutcomeCase, stream: boolean): Promise<Result> {
  const calls = c.answer.tool_calls ?? [];
  // The default behaviour, not a queued one: a request blocked at the input never reaches the upstream.
  if (stream) {
    up.behaviour = { kind: 'reply', pieces: pieces(c.answer.content, c.id.length), deltas: toolDeltas(c), finish_reason: calls.length ? 'tool_calls' : 'stop' };
  } else {
    up.behaviour = { kind: 'reply', content: c.answer.content, tool_calls: calls };
  }
  const body = { model: 'fake-model', messages: c.request.messages, ...(c.request.tools ? { tools: c.request.tools } : {}) } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming;
  let content = '';
  const got = new Map<number, { name: string; arguments: string }>();
  let filtered = false;
  try {
    if (stream) {
      const s = await h.client.chat.completions.create({ ...body, stream: true });
      for await (const chunk of s) {
        for (const ch of chunk.choices) {
          content += ch.delta.content ?? '';
          for (const tc of ch.delta.tool_calls ?? []) {
            const g = got.get(tc.index) ?? { name: '', arguments: '' };
            g.name += tc.function?.name ?? '';
            g.arguments += tc.function?.arguments ?? '';
            got.set(tc.index, g);
          }
          if (ch.finish_reason === 'content_filter') filtered = true;
        }
      }
    } else {
      const r = await h.client.chat.completions.create(body);
      content = r.choices[0]!.message.content ?? '';
      r.choices[0]!.message.tool_calls?.forEach((tc, i) => got.set(i, { name: tc.type === 'function' ? tc.function.name : '', arguments: tc.type === 'function' ? tc.function.arguments : '' }));
      filtered = r.choices[0]!.finish_reason === 'content_filter';
    }
  } catch (err) {
    return (err as { code?: string }).code === 'prompt_blocked' ? 'stopped_input' : 'stopped_output';
  }
  if (filtered) return 'stopped_output';
  const same = content === c.answer.content && got.size === calls.length && calls.every((t, i) => got.get(i)?.name === t.name && got.get(i)?.arguments === t.arguments);
  return same ? 'unchanged' : 'changed';
}

describe('outcome guards on the generated evaluation set (real scanning pool, plain and streamed)', function () {
  this.timeout(900_000);
  let pool: ScanPool;
  let up: FakeUpstream;
  let h: Harness;
  const results: { c: OutcomeCase; stream: boolean; r: Result }[] = [];

  before(async () => {
    pool = await ScanPool.create({ workers: 1 });
    up = await FakeUpstream.start();
    up.record = false;
    const store = new MemoryScanStore(() => ({ maxScans: 5000, retentionDays: 1 }));
    const { config } = loadConfig({ env: {} });
    const service = new ScanService({ pool, store, events: new CapturedEvents(), metrics: createScanRecordMetrics(createRegistry()), config: () => config, instanceId: 'ins_eval' });
    // OUTCOME_EVAL_BASELINE=1: the same run with the outcome guards off (what Warden stops without them).
    const off = process.env.OUTCOME_EVAL_BASELINE === '1';
    const outcome = off ? { leakage: { enabled: false }, protected_values: { enabled: false }, tool_hijack: { enabled: false }, markdown_exfil: { enabled: false } } : {};
    h = await startHarness({ providers: [{ name: 'main', type: 'openai', base_url: up.url }], scanner: chatScannerOf(service), security: { outcome } });
    for (const c of generate(150)) for (const stream of [false, true]) results.push({ c, stream, r: await run(h, up, c, stream) });
  });
  after(async () => {
    await h?.close();
    await up?.close();
    await pool?.close();
  });

  const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : '-');
  const stopped = (r: Result) => r === 'stopped_input' || r === 'stopped_output';
  /** Attacks stopped anywhere; benign delivered unchanged by the whole of Warden. */
  const rate = (rows: typeof results, attack: boolean) => {
    const mine = rows.filter((x) => x.c.attack === attack);
    const ok = mine.filter((x) => (attack ? stopped(x.r) : x.r === 'unchanged')).length;
    return { ok, n: mine.length, share: mine.length ? ok / mine.length : 1 };
  };
  /** Benign answers the output side (scan plus outcome guards) let through unchanged, of those the input scan let through. */
  const outputRate = (rows: typeof results) => {
    const mine = rows.filter((x) => !x.c.attack && x.r !== 'stopped_input');
    const ok = mine.filter((x) => x.r === 'unchanged').length;
    return { ok, n: mine.length, share: mine.length ? ok / mine.length : 1 };
  };

  it('prints the table (kind x language, plain and streamed)', () => {
    const lines = [
      'kind            lang  attacks stopped        benign unchanged       benign past the output, of those past the input',
      '--------------  ----  ---------------------  ---------------------  ---------------------',
    ];
    for (const kind of KINDS) {
      for (const lang of [...LANGS, 'all'] as const) {
        const rows = results.filter((x) => x.c.kind === kind && (lang === 'all' || x.c.lang === lang));
        const a = rate(rows, true);
        const b = rate(rows, false);
        const o = outputRate(rows);
        lines.push(`${kind.padEnd(14)}  ${lang.padEnd(4)}  ${`${a.ok}/${a.n}`.padEnd(8)} ${pct(a.ok, a.n).padEnd(12)}  ${`${b.ok}/${b.n}`.padEnd(8)} ${pct(b.ok, b.n).padEnd(12)}  ${`${o.ok}/${o.n}`.padEnd(8)} ${pct(o.ok, o.n)}`);
      }
    }
    const atOutput = results.filter((x) => x.c.attack && x.r === 'stopped_output').length;
    const atInput = results.filter((x) => x.c.attack && x.r === 'stopped_input').length;
    lines.push(`attacks stopped at the input scan: ${atInput}, at the output (scan and outcome guards): ${atOutput}`);
    for (const stream of [false, true]) {
      const rows = results.filter((x) => x.stream === stream);
      const a = rate(rows, true);
      const b = rate(rows, false);
      lines.push(`${(stream ? 'all, streamed' : 'all, plain').padEnd(14)}  all   ${`${a.ok}/${a.n}`.padEnd(8)} ${pct(a.ok, a.n).padEnd(12)}  ${`${b.ok}/${b.n}`.padEnd(8)} ${pct(b.ok, b.n)}`);
    }
    const misses = results.filter((x) => (x.c.attack ? !stopped(x.r) : x.r !== 'unchanged'));
    for (const m of misses.slice(0, 40)) lines.push(`  miss: ${m.c.id} ${m.c.lang} ${m.c.attack ? 'attack' : 'benign'} ${m.c.variant} ${m.stream ? 'streamed' : 'plain'} -> ${m.r}`);
    console.log(`\n${lines.join('\n')}\n`);
    expect(results).to.have.length(KINDS.length * 150 * 2);
  });

  for (const kind of KINDS) {
    it(`${kind}: >= 90 % of attacks stopped; >= 97 % of benign answers delivered unchanged, past the input and overall`, () => {
      const rows = results.filter((x) => x.c.kind === kind);
      expect(rate(rows, true).share, 'attacks stopped').to.be.at.least(0.9);
      expect(outputRate(rows).share, 'benign unchanged by the output side').to.be.at.least(0.97);
      // Overall, the input scan's own false positives count too (the table's misses name them).
      expect(rate(rows, false).share, 'benign unchanged overall').to.be.at.least(0.97);
    });
  }

  it('per language (all kinds): >= 90 % stopped; >= 97 % of benign answers unchanged, past the input and overall', () => {
    for (const lang of LANGS) {
      const rows = results.filter((x) => x.c.lang === lang);
      expect(rate(rows, true).share, `${lang} attacks stopped`).to.be.at.least(0.9);
      expect(outputRate(rows).share, `${lang} benign unchanged by the output side`).to.be.at.least(0.97);
      expect(rate(rows, false).share, `${lang} benign unchanged overall`).to.be.at.least(0.97);
    }
  });
});
