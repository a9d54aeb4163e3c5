import { expect } from 'chai';
import { boundedResult } from '../../src/jobs/result-trim.js';

/** One document's result kept within a byte limit: the verdict kept, the detail trimmed and said so. */
describe('boundedResult', () => {
  const render = (b: Record<string, unknown>) => JSON.stringify({ index: 3, id: 'doc-3', ...b });
  const threat = (k: number, spans: number) => ({
    threat_id: `t${k}`, attack_type: 'prompt_injection', severity: 'high', rule_id: `r${k}`, message: `threat ${k}`,
    spans: Array.from({ length: spans }, (_, s) => ({ start: s * 10, end: s * 10 + 5 })),
  });
  const body = (threats: unknown[]) => ({ scan_id: 'scn_1', verdict: 'block', flagged: true, risk_score: 0.97, threats, latency_ms: 1.2 });

  it('leaves a result that fits as it is', () => {
    const b = body([threat(0, 3)]);
    const r = boundedResult(b, render, 10_000);
    expect(r).to.deep.include({ trimmed: false, failed: false });
    expect(r.line).to.equal(render(b));
  });

  it('cuts spans first, keeping every threat and the verdict, and says what the full result had', () => {
    const b = body([threat(0, 200), threat(1, 200), threat(2, 3)]);
    const r = boundedResult(b, render, 2500);
    expect(r).to.deep.include({ trimmed: true, failed: false });
    expect(Buffer.byteLength(r.line)).to.be.at.most(2500);
    const out = JSON.parse(r.line);
    expect(out).to.deep.include({ verdict: 'block', flagged: true, risk_score: 0.97, scan_id: 'scn_1' });
    expect(out.threats.map((t: { threat_id: string }) => t.threat_id)).to.deep.equal(['t0', 't1', 't2']);
    expect(out.threats[0].spans.length).to.be.below(200);
    expect(out.truncated).to.deep.equal({ threats: 3, spans: 403, limit_bytes: 2500 });
  });

  it('drops threats from the end when spans alone are not enough', () => {
    const b = body(Array.from({ length: 40 }, (_, k) => threat(k, 2)));
    const r = boundedResult(b, render, 1500);
    const out = JSON.parse(r.line);
    expect(Buffer.byteLength(r.line)).to.be.at.most(1500);
    expect(out.verdict).to.equal('block');
    expect(out.threats.length).to.be.above(0).and.below(40);
    expect(out.threats[0].threat_id).to.equal('t0');
    expect(out.truncated.threats).to.equal(40);
    // As many as fit: one more would not.
    const more = render({ ...b, threats: b.threats.slice(0, out.threats.length + 1).map((t) => ({ ...(t as object), spans: [] })), truncated: out.truncated });
    expect(Buffer.byteLength(more)).to.be.above(1500);
  });

  it('falls back to an error result naming jobs.chunk_max_bytes when not even the verdict fits', () => {
    const b = { ...body([threat(0, 1)]), policy: 'p'.repeat(400) };
    const r = boundedResult(b, render, 300);
    expect(r).to.deep.include({ trimmed: true, failed: true });
    const out = JSON.parse(r.line);
    expect(out.error).to.include({ code: 'result_too_large', type: 'api_error' });
    expect(out.error.message).to.match(/jobs\.chunk_max_bytes/);
  });
});
