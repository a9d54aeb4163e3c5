import { expect } from 'chai';
import plugin, { cardGrouping } from './index.js';
import { makeInput } from '../testing-input.js';

const scan = (text: string): string[] =>
  plugin.scan(makeInput(text, { target: 'prompt' }), { rules: { match: () => [], ruleCount: 0, version: 't' }, config: { ...plugin.meta.defaultConfig } }).map((f) => f.ruleId);

describe('pii: card numbers have a card shape (issue 24)', () => {
  it('takes cards whole, in even groups and in the issuers\' uneven ones', () => {
    for (const v of ['4111111111111111', '4111 1111 1111 1111', '4111-1111-1111-1111', '3782 822463 10005', '4222 2222 22222', '4-2-2-2-2-2-2-2-2-2-2-2-2']) expect(cardGrouping(v), v).to.equal(true);
    expect(scan('my card is 4111 1111 1111 1111, exp 12/29')).to.deep.equal(['pii.card']);
  });

  it('ignores numbers of mixed lengths, byte pairs and digits glued to letters', () => {
    for (const v of ['492 5 4 264 13 936', '41 11 11 11 11 11 11 11', '1063606 6423197']) expect(cardGrouping(v), v).to.equal(false);
    // Luhn-valid 4111111111111111 inside a hex string and a UUID-like id: not a card.
    expect(scan('sha: ab4111111111111111cd')).to.deep.equal([]);
    expect(scan('ids: 4111 1111 1111 1111x9')).to.deep.equal([]);
    expect(scan('6f 41 11 11 11 11 11 11 11 a4')).to.deep.equal([]);
  });
});
