import { expect } from 'chai';
import { maskLabel, maskOf, maskText } from '../../src/scan-service/mask.js';

describe('scan record masking (src/scan-service/mask.ts)', () => {
  const AWS = 'AKIA' + 'Q3ZJ7RXK2M5VWT4P';

  it('masks a value with its type and last characters, at its own length', () => {
    const m = maskOf(AWS, 'secrets.aws-access-key-id');
    expect(m).to.equal('[AWS_KEY ******…T4P]');
    expect(m).to.have.length(AWS.length);
    expect(maskLabel('pii.credit-card')).to.equal('CREDIT_CARD');
  });

  it('shows fewer characters of short values, and none of very short ones', () => {
    const short = maskOf('555-0142', 'pii.phone');
    expect(short).to.have.length(8);
    expect(short).not.to.contain('555');
    expect(short.endsWith('2]')).to.equal(true);
    expect(maskOf('abcd', 'secrets.x')).to.equal('[*…]');
    expect(maskOf('ab', 'secrets.x')).to.equal('**');
  });

  it('masks every span, merges overlapping ones and keeps the rest of the text', () => {
    const text = `id ${AWS} and ${AWS}!`;
    const a = text.indexOf(AWS);
    const b = text.lastIndexOf(AWS);
    const out = maskText(text, [
      { start: b, end: b + AWS.length, ruleId: 'secrets.aws-access-key-id' },
      { start: a, end: a + AWS.length, ruleId: 'secrets.aws-access-key-id' },
      { start: a + 2, end: a + 10, ruleId: 'secrets.generic-assignment' },
    ]);
    expect(out).to.have.length(text.length);
    expect(out).not.to.contain(AWS.slice(0, 8));
    expect(out.startsWith('id [AWS_KEY ')).to.equal(true);
    expect(out.endsWith('T4P]!')).to.equal(true);
    expect(maskText(text, [])).to.equal(text);
  });
});
