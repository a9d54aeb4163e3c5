import { expect } from 'chai';
import { SECRET_KINDS, secretKindsIn } from '../../src/scanning/secret-kinds.js';
import { mulberry32 } from '../../src/util/prng.js';

/** The credential formats the secrets detector and the proxy's protected-value guard share. */
describe('secret kinds', () => {
  const matching = (text: string): number[] =>
    SECRET_KINDS.flatMap((k, i) => {
      k.re.lastIndex = 0;
      const hit = k.re.test(text);
      k.re.lastIndex = 0;
      return hit ? [i] : [];
    });

  it('secretKindsIn names exactly the kinds whose pattern matches (random token soup)', () => {
    const r = mulberry32(1207);
    const pieces = ['a', 'Z', '9', '_', '-', '+', '/', '=', '.', '~', ' ', '"', ':', '%', 'é', '\n', 'xoxb-', 'AKIA', 'AIza', 'ghp_', 'eyJ', 'sk-', 'token=', 'api_key: ',
      'password ', 'sig=', '&sv=2021-06-08&', '-----BEGIN ', 'PRIVATE KEY-----', '"type": "service_account", "private_key": "', 'aB3dE6gH9', 'Q1w2E3r4T5y6', 'IOSFODNN7EXAMPLE'];
    let withKinds = 0;
    for (let i = 0; i < 5_000; i++) {
      let t = '';
      for (let k = Math.floor(r() * 40) + 1; k > 0; k--) t += pieces[Math.floor(r() * pieces.length)];
      const want = matching(t);
      expect([...secretKindsIn(t)].sort((a, b) => a - b), JSON.stringify(t)).to.deep.equal(want);
      if (want.length) withKinds++;
    }
    expect(withKinds).to.be.greaterThan(500);
  });

  it('names none in prose, and reads a text too long for the gate through the UTF-8 it is given', () => {
    expect(secretKindsIn('Our hotline is open from 8 to 6; the staff access code is Heron-77.')).to.deep.equal([]);
    const key = 'AKIAIOSFODNN7EXAMPLE';
    const long = `${'word '.repeat(20_000)}${key}`;
    let asked = 0;
    const kinds = secretKindsIn(long, () => (asked++, Buffer.from(long, 'utf8')));
    expect(asked).to.equal(1);
    expect(kinds.map((k) => SECRET_KINDS[k]!.id)).to.include('aws-access-key-id');
  });
});
