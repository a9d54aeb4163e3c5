import { expect } from 'chai';
import plugin, { ibanValid, luhnValid, findPii, piiGates, PII_KIND_BITS, PII_PATTERNS, type PiiKind } from './index.js';
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

describe('pii gates', () => {
  const ALL = new Set<PiiKind>(['card', 'iban', 'email', 'phone']);
  const passes = (text: string, kind: PiiKind): boolean => (piiGates(text, PII_KIND_BITS[kind]) & PII_KIND_BITS[kind]) !== 0;
  const matches = (text: string, kind: PiiKind): boolean => {
    const re = PII_PATTERNS[kind];
    re.lastIndex = 0;
    return re.exec(text) !== null;
  };

  it('let through texts just inside each kind and find them', () => {
    // 13-digit Luhn-valid Visa, grouped and with one separator between every digit.
    for (const card of ['4222 2222 22222', '4-2-2-2-2-2-2-2-2-2-2-2-2', '4222222222222']) {
      expect(passes(`pay with ${card} today`, 'card'), card).to.equal(true);
      expect(ids(scan(`pay with ${card} today`)), card).to.deep.equal(['pii.card']);
    }
    for (const phone of ['+44 20 7946 0958', '(415) 555-0132', '+14155550132', '415.555.0132', '030 1234 5678', '(020)7946 0958']) {
      expect(passes(`call ${phone} now`, 'phone'), phone).to.equal(true);
      expect(ids(scan(`call ${phone} now`)), phone).to.deep.equal(['pii.phone']);
    }
    for (const email of ['a.b%c+d-e_f@sub-domain.co.uk', 'X@Y.ORG', '1@2.io']) {
      expect(passes(`mail ${email}.`, 'email'), email).to.equal(true);
      expect(ids(scan(`mail ${email}.`)), email).to.deep.equal(['pii.email']);
    }
    expect(passes('IBAN GB82WEST12345698765432', 'iban')).to.equal(true);
    expect(ids(scan('IBAN GB82WEST12345698765432'))).to.deep.equal(['pii.iban']);
  });

  it('stop texts just outside each kind', () => {
    // 12 digits; 13 digits with a double separator; separators the card pattern does not take.
    for (const t of ['4222 2222 2222', '4222  2222 22222', '4222.2222.22222', '4/2/2/2/2/2/2/2/2/2/2/2/2']) {
      expect(passes(t, 'card'), t).to.equal(false);
      expect(matches(t, 'card'), t).to.equal(false);
    }
    // Two-digit groups, a '+' with seven digits, dates.
    for (const t of ['12 34 56 78', '+1234567', '2024-05-17', '12-345-67', '1.2.3.4.5.6.7.8']) {
      expect(passes(t, 'phone'), t).to.equal(false);
      expect(matches(t, 'phone'), t).to.equal(false);
    }
    expect(passes('GB82 WEST 123', 'iban')).to.equal(false);
    expect(passes('no at sign here, just text', 'email')).to.equal(false);
  });

  it('are necessary conditions of the RE2 patterns (random digit, separator and letter soup)', () => {
    let state = 12345;
    const rand = (n: number): number => ((state = (state * 1103515245 + 12345) >>> 0) % n);
    const pieces = ['0', '1', '4', '7', '12', '345', '4111', '5555', '4111 1111', '22222', '3782-8224', ' ', '-', '.', '(', ')', '+', '@', 'GB', 'DE', 'WEST', 'x', 'e', '.com', '  ', '\n', 'é'];
    const matched: Record<string, number> = {};
    for (let i = 0; i < 20_000; i++) {
      let t = '';
      for (let k = rand(40) + 1; k > 0; k--) t += pieces[rand(pieces.length)];
      for (const kind of ALL) {
        if (matches(t, kind)) {
          matched[kind] = (matched[kind] ?? 0) + 1;
          expect(passes(t, kind), `${kind}: ${JSON.stringify(t)}`).to.equal(true);
        }
      }
    }
    for (const kind of ALL) expect(matched[kind] ?? 0, kind).to.be.greaterThan(200);
  });

  it('finish on 100 KB hostile inputs for every gate (mocha timeout is the guard)', () => {
    const hostile = [
      '1 '.repeat(12) + 'x ', // 12 separated digits, then a stop: the card gate's longest failing attempt
      '1-1-1-1-1-1-1-1-1-1-1-1--',
      'AB12 ABCD ABC!', // IBAN start, one group of four, a short second
      '123 12-',
      '+1234567 ',
      'a@',
      '1'.repeat(100) + ' ',
    ];
    for (const unit of hostile) {
      const text = unit.repeat(Math.ceil(100_000 / unit.length));
      const gates = piiGates(text, 15);
      for (const kind of ALL) if (matches(text, kind)) expect(gates & PII_KIND_BITS[kind], `${kind}: ${unit}`).to.not.equal(0);
      findPii(text, ALL);
    }
  });
});
