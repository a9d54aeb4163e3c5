import { expect } from 'chai';
import { resultLineLimit, resultMessages } from '../../src/jobs/result-messages.js';

/** The results topic's messages: bounded in bytes, in order, every line once. */
describe('resultMessages', () => {
  const line = (i: number, pad: number) => JSON.stringify({ index: i, id: `d${i}`, pad: 'é'.repeat(pad) });

  it('gives one message for a chunk that fits, with part 0 of 1 and the range it holds', () => {
    const lines = [line(10, 3), line(11, 3)];
    const [only, ...rest] = resultMessages('job_a', 2, 'w1', 10, lines, 10_000);
    expect(rest).to.have.length(0);
    const m = JSON.parse(only!);
    expect(m).to.deep.include({ job: 'job_a', chunk: 2, instance_id: 'w1', part: 0, parts: 1, start: 10, count: 2 });
    expect(m.results.map((r: { index: number }) => r.index)).to.deep.equal([10, 11]);
  });

  it('splits a chunk over the bound into consecutive parts, each within maxBytes counted in UTF-8 bytes', () => {
    const max = 2000;
    const lines = Array.from({ length: 40 }, (_, k) => line(100 + k, 50 + ((k * 37) % 300)));
    const msgs = resultMessages('job_b', 5, 'w2', 100, lines, max);
    expect(msgs.length).to.be.above(3);
    const parsed = msgs.map((m) => JSON.parse(m));
    let next = 100;
    parsed.forEach((m, part) => {
      expect(Buffer.byteLength(msgs[part]!)).to.be.at.most(max);
      expect(m).to.deep.include({ job: 'job_b', chunk: 5, part, parts: msgs.length, start: next });
      expect(m.count).to.equal(m.results.length);
      for (const r of m.results) expect(r.index).to.equal(next++);
    });
    expect(next).to.equal(140);
  });

  it('leaves room for one line of resultLineLimit bytes, and puts a longer line alone', () => {
    const max = 1024;
    const limit = resultLineLimit('job_c', 'w3', max);
    const fill = (i: number, bytes: number) => {
      const base = JSON.stringify({ index: i, pad: '' });
      return JSON.stringify({ index: i, pad: 'x'.repeat(bytes - base.length) });
    };
    const exact = fill(7, limit);
    expect(Buffer.byteLength(exact)).to.equal(limit);
    const [m] = resultMessages('job_c', 99_999, 'w3', 7, [exact], max);
    expect(Buffer.byteLength(m!)).to.be.at.most(max);
    const msgs = resultMessages('job_c', 1, 'w3', 6, [fill(6, 40), fill(7, limit + 50), fill(8, 40)], max);
    expect(msgs.map((x) => JSON.parse(x).count)).to.deep.equal([1, 1, 1]);
  });
});
