import { expect } from 'chai';
import plugin, { ibanValid, luhnValid, findPii } from './index.js';
import { makeInput } from '../testing-input.js';
import type { Finding, Target } from '../../src/scanning/types.js';

const scan = (text: string, target: Target = 'output', config: Record<string, unknown> = {}): Finding[] =>
  plugin.scan(makeInput(text, { target }), { rules: { match: () => [], ruleCount: 0, version: 't' }, config: { ...plugin.meta.defaultConfig, ...config } });
const ids = (fs: Finding[]): string[] => fs.map((f) => f.ruleId).sort();

describe('pii plugin', () => {
  it('validates Luhn and IBAN checksums', () => {
    expect(luhnValid('4111111111111111')).to.equal(true);
    expect(luhnValid('4111111111111112')).to.equal(false);
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).to.equal(true);
    expect(ibanValid('GB82 WEST 1234 5698 7654 33')).to.equal(false);
    expect(ibanValid('DE89370400440532013000')).to.equal(true);
  });

  it('finds a Luhn-valid card with separators and points the span at it', () => {
    const text = 'Card: 4111 1111 1111 1111, exp 12/29';
    const [f] = scan(text);
    expect(f!.ruleId).to.equal('pii.card');
    expect(text.slice(f!.spans[0]!.start, f!.spans[0]!.end)).to.equal('4111 1111 1111 1111');
  });

  it('ignores digit runs that fail Luhn or have no card prefix', () => {
    expect(scan('Order 4111 1111 1111 1112 shipped')).to.deep.equal([]);
    expect(scan('Reference ID 0000000000000000')).to.deep.equal([]);
    expect(scan('Tracking 1234567812345670')).to.deep.equal([]); // Luhn-valid, but no issuer prefix
  });

  it('finds IBAN, e-mail and phone numbers in output', () => {
    expect(ids(scan('Pay to DE89 3704 0044 0532 0130 00 please'))).to.deep.equal(['pii.iban']);
    expect(ids(scan('Write to jane.doe@acme-corp.io'))).to.deep.equal(['pii.email']);
    expect(scan('Use user@example.com or admin@mail.example.org or a@b.test in the docs')).to.deep.equal([]);
    expect(ids(scan('Call +44 20 7946 0958 or (415) 555-0132'))).to.deep.equal(['pii.phone']);
    expect(findPii('Call +14155550132 now', new Set(['phone'])).get('phone')).to.have.length(1);
  });

  it('does not treat dates, versions or prices as phone numbers', () => {
    expect(scan('Released 2024-05-17, version 1.2.3, price $1,200.00')).to.deep.equal([]);
  });

  it('reports only cards and IBANs in prompts by default, all kinds when configured', () => {
    expect(scan('my email is jane@acme-corp.io', 'prompt')).to.deep.equal([]);
    expect(ids(scan('card 5555 5555 5555 4444', 'prompt'))).to.deep.equal(['pii.card']);
    expect(ids(scan('my email is jane@acme-corp.io', 'prompt', { prompt_kinds: ['email'] }))).to.deep.equal(['pii.email']);
  });
});
