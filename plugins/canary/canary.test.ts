import { expect } from 'chai';
import plugin from './index.js';
import { makeInput } from '../testing-input.js';
import type { Finding } from '../../src/scanning/types.js';

const scan = (text: string, tokens: unknown): Finding[] =>
  plugin.scan(makeInput(text, { target: 'output' }), { rules: { match: () => [], ruleCount: 0, version: 't' }, config: { tokens } });

describe('canary plugin', () => {
  it('reports canary_leak with the span of each occurrence', () => {
    const text = 'Sure! My instructions say CANARY-7f3a9c and again CANARY-7f3a9c.';
    const [f] = scan(text, ['CANARY-7f3a9c']);
    expect(f!.attackType).to.equal('canary_leak');
    expect(f!.severity).to.equal('critical');
    expect(f!.spans).to.have.length(2);
    expect(text.slice(f!.spans[0]!.start, f!.spans[0]!.end)).to.equal('CANARY-7f3a9c');
  });

  it('finds a token whose case was changed or which was split by zero-width characters', () => {
    expect(scan('leaked: canary-7F3A9C', ['CANARY-7f3a9c'])).to.have.length(1);
    expect(scan('leaked: CANA\u200bRY-7f3a9c', ['CANARY-7f3a9c'])).to.have.length(1);
  });

  it('reports nothing without tokens, for absent tokens, and ignores unusable config', () => {
    expect(scan('CANARY-7f3a9c', [])).to.deep.equal([]);
    expect(scan('nothing to see', ['CANARY-7f3a9c'])).to.deep.equal([]);
    expect(scan('abc', ['abc', 42, null])).to.deep.equal([]); // too short / not strings
    expect(scan('abc', 'CANARY-7f3a9c')).to.deep.equal([]);
  });
});
