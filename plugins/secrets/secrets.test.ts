import { expect } from 'chai';
import { hasTokenRun, SECRET_KINDS, secretsGate } from '../../src/scanning/secret-kinds.js';
import plugin, { shannonEntropy } from './index.js';
import { makeInput } from '../testing-input.js';
import type { Finding } from '../../src/scanning/types.js';

const scan = (text: string, target: 'prompt' | 'output' = 'output', config: Record<string, unknown> = {}): Finding[] =>
  plugin.scan(makeInput(text, { target }), { rules: { match: () => [], ruleCount: 0, version: 't' }, config: { ...plugin.meta.defaultConfig, ...config } });
const ids = (fs: Finding[]): string[] => fs.map((f) => f.ruleId).sort();

// Built from parts so the repository itself holds no scanner-triggering literals.
const AWS_ID = 'AKIA' + 'IOSFODNN7' + 'EXAMPLE';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/' + 'bPxRfiCYzQ8vK3mLpW';
const GH = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
const JWT = 'eyJhbGciOiJIUzI1NiJ9' + '.eyJzdWIiOiIxMjM0NTY3ODkwIn0' + '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

describe('secrets plugin', () => {
  it('finds an AWS key pair and reports the secret key as critical with a span on it', () => {
    const text = `aws_access_key_id = ${AWS_ID}\naws_secret_access_key = ${AWS_SECRET}`;
    const fs = scan(text);
    expect(ids(fs)).to.deep.equal(['secrets.aws-access-key-id', 'secrets.aws-secret-access-key']);
    const secret = fs.find((f) => f.ruleId === 'secrets.aws-secret-access-key')!;
    expect(secret.severity).to.equal('critical');
    expect(text.slice(secret.spans[0]!.start, secret.spans[0]!.end)).to.equal(AWS_SECRET);
    expect(secret.message).not.to.contain(AWS_SECRET);
  });

  it('recognises vendor token formats', () => {
    const cases: [string, string][] = [
      [GH, 'secrets.github-token'],
      ['glpat-' + 'xYz12345678901234567', 'secrets.gitlab-token'],
      ['xoxb-' + '123456789012-123456789012-AbCdEfGhIjKlMnOp', 'secrets.slack-token'],
      ['sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc', 'secrets.stripe-key'],
      ['sk-proj-' + 'Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78St90Uv12', 'secrets.openai-key'],
      ['sk-ant-api03-' + 'A'.repeat(10) + 'b1C2d3E4f5'.repeat(8) + '-xyzAA', 'secrets.anthropic-key'],
      ['AIza' + 'SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY', 'secrets.gcp-api-key'],
      [JWT, 'secrets.jwt'],
      ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----', 'secrets.private-key'],
      ['DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=' + 'Zm9vYmFy'.repeat(11) + '==;', 'secrets.azure-storage-key'],
      ['{"type": "service_account", "project_id": "p", "private_key": "-----BEGIN PRIVATE KEY-----\\nMII"}', 'secrets.gcp-service-account'],
    ];
    for (const [text, id] of cases) expect(ids(scan(`here it is: ${text} ok`)), text).to.include(id);
  });

  it('flags a high-entropy generic assignment but not placeholders or words', () => {
    expect(ids(scan('api_key = "q8Zr2LmX0vTb7NcW4yKd"'))).to.deep.equal(['secrets.generic-assignment']);
    expect(scan('api_key = "YOUR_API_KEY_HERE_PLEASE"')).to.deep.equal([]);
    expect(scan('password: correcthorsebatterystaple')).to.deep.equal([]);
    expect(scan('token = xxxxxxxxxxxxxxxxxxxxxxxx')).to.deep.equal([]);
    expect(scan('token = process.env.GITHUB_TOKEN')).to.deep.equal([]);
    expect(scan('api_key = OPENAI_API_KEY_PRODUCTION')).to.deep.equal([]);
  });

  it('does not report near-misses', () => {
    expect(scan('The AKIA prefix marks AWS access key ids; sk-live is a Stripe thing.')).to.deep.equal([]);
    expect(scan('Use eyJ tokens carefully. ghp_short is not a token.')).to.deep.equal([]);
    expect(scan('-----BEGIN PUBLIC KEY-----\nMIIBIjANBg...')).to.deep.equal([]);
  });

  it('finds keys glued to a longer token where the vendor format allows it (issue 23, item 7)', () => {
    const aws = 'AKIA' + 'Q3ZJ7RXK2M5VWT4P';
    const glued: [string, string, string][] = [
      [`key: x${aws}`, 'secrets.aws-access-key-id', aws],
      [`id=${aws}x and ${AWS_ID}`, 'secrets.aws-access-key-id', aws],
      [`token${GH}`, 'secrets.github-token', GH],
      ['auth:xxoxb-' + '123456789012-AbCdEfGhIj', 'secrets.slack-token', 'xoxb-' + '123456789012-AbCdEfGhIj'],
      ['keyxsk_live_' + '4eC39HqLyjWDarjtT1zdp7dc', 'secrets.stripe-key', 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc'],
      ['cert:-----BEGIN ' + 'PRIVATE KEY-----MII', 'secrets.private-key', '-----BEGIN ' + 'PRIVATE KEY-----'],
    ];
    for (const [text, id, secret] of glued) {
      const f = scan(text).find((x) => x.ruleId === id);
      expect(f, text).to.not.equal(undefined);
      expect(text.slice(f!.spans[0]!.start, f!.spans[0]!.end), text).to.equal(secret);
    }
    // Two keys one delimiter apart are both found (the delimiter between them is shared).
    expect(scan(`${aws} ${AWS_ID}`).find((x) => x.ruleId === 'secrets.aws-access-key-id')!.spans).to.have.length(2);
  });

  it('does not take look-alikes of the glued forms for keys', () => {
    const aws = 'AKIA' + 'Q3ZJ7RXK2M5VWT4P';
    // Inside a longer run of upper-case letters and digits (a hash, base32): not an AWS key id.
    expect(ids(scan(`digest Z${aws}`))).to.deep.equal([]);
    expect(ids(scan(`digest ${aws}Q7`))).to.deep.equal([]);
    expect(ids(scan(`akia${aws.slice(4).toLowerCase()}`))).to.deep.equal([]);
    // A snake_case name that contains sk_test_ is not a Stripe key.
    expect(ids(scan('run disk_test_' + 'fixturesForTheBackupJobs now'))).to.deep.equal([]);
    expect(ids(scan('ghp_' + 'tooShort123'))).to.deep.equal([]);
    expect(ids(scan('xoxb-short'))).to.deep.equal([]);
    expect(ids(scan('-----BEGIN ' + 'PUBLIC KEY-----MII'))).to.deep.equal([]);
  });

  it('reports a specific kind once rather than also as a generic assignment', () => {
    expect(ids(scan(`token = ${GH}`))).to.deep.equal(['secrets.github-token']);
  });

  it('honours disabled_kinds', () => {
    expect(scan(JWT, 'prompt', { disabled_kinds: ['jwt'] })).to.deep.equal([]);
  });

  it('computes Shannon entropy', () => {
    expect(shannonEntropy('aaaa')).to.equal(0);
    expect(shannonEntropy('abcd')).to.equal(2);
  });
});

describe('secrets gate', () => {
  const utf8 = (s: string): Buffer => Buffer.from(s, 'utf8');
  const anyKind = (text: string): boolean => SECRET_KINDS.some((k) => { k.re.lastIndex = 0; return k.re.test(text); });

  it('lets the shortest secrets through and finds them', () => {
    const slack = 'xoxb-' + '1a2B3c4D5e'; // a run of exactly 15
    expect(secretsGate(`token: ${slack}`)).to.equal(true);
    expect(ids(scan(`here: ${slack} ok`))).to.include('secrets.slack-token');
    // A PEM header has no long run; a percent-encoded SAS signature breaks its run.
    expect(secretsGate('-----BEGIN PRIVATE KEY-----')).to.equal(true);
    expect(ids(scan('-----BEGIN PRIVATE KEY-----'))).to.deep.equal(['secrets.private-key']);
    const sas = 'https://acct.blob.core.windows.net/c?sv=2021-06-08&ss=b&sig=' + 'aB3%2Bc4%2Fd5e'.repeat(4);
    expect(secretsGate(sas)).to.equal(true);
    expect(ids(scan(sas))).to.include('secrets.azure-sas-token');
  });

  it('stops texts with no run of 15 token characters and no PEM or SAS marker', () => {
    expect(secretsGate('token: xoxb-1a2B3c4D5')).to.equal(false); // 14
    expect(secretsGate('Ordinary prose, with words like internationalisation (20) split: inter-national-isation!')).to.equal(true);
    expect(secretsGate('Ordinary prose, with short words only; nothing to see here at all.')).to.equal(false);
    expect(secretsGate('aaaaaaaaaaaaaa\u00e9aaaaaaaaaaaaaa')).to.equal(false); // a non-ASCII letter ends the run
    expect(hasTokenRun(utf8('abcdefghijklmn op'), 17)).to.equal(false);
    expect(hasTokenRun(utf8('x abcdefghijklmno'), 17)).to.equal(true); // a run at the very end
    expect(hasTokenRun(utf8('abcdefghijklmno x'), 17)).to.equal(true); // ... and at the very start
  });

  it('is a necessary condition of every kind (random token soup)', () => {
    let state = 777;
    const rand = (n: number): number => ((state = (state * 1103515245 + 12345) >>> 0) % n);
    const pieces = ['a', 'Z', '9', '_', '-', '+', '/', '=', '.', '~', ' ', '"', ':', '%', 'é', 'xoxb-', 'AKIA', 'AIza', 'ghp_', 'eyJ', 'sk-', 'token=', 'api_key: ',
      'sig=', '&sv=2021-06-08&', '-----BEGIN ', 'PRIVATE KEY-----', '"type": "service_account", "private_key": "', 'aB3dE6gH9', 'Q1w2E3r4T5y6'];
    const hits: Record<string, number> = { pass: 0, match: 0 };
    for (let i = 0; i < 20_000; i++) {
      let t = '';
      for (let k = rand(30) + 1; k > 0; k--) t += pieces[rand(pieces.length)];
      const gate = secretsGate(t);
      if (gate) hits.pass!++;
      if (anyKind(t)) {
        hits.match!++;
        expect(gate, JSON.stringify(t)).to.equal(true);
      }
      // The skip search agrees with a plain run count.
      expect(hasTokenRun(utf8(t), utf8(t).length), JSON.stringify(t)).to.equal(/[A-Za-z0-9_\-+/=.~]{15}/.test(t));
    }
    expect(hits.match).to.be.greaterThan(500);
    expect(hits.pass).to.be.lessThan(20_000);
  });

  it('reads its config before the gate (a malformed one fails on any text, as before)', () => {
    expect(() => scan('nothing to see', 'output', { disabled_kinds: 5 })).to.throw(TypeError);
  });

  it('finishes on 100 KB hostile inputs (mocha timeout is the guard)', () => {
    for (const unit of ['abcdefghijklmn ', 'a', '-----BEGI', '?sv', 'token = ' + 'ab'.repeat(7) + ' ']) {
      const text = unit.repeat(Math.ceil(100_000 / unit.length));
      if (anyKind(text)) expect(secretsGate(text), unit).to.equal(true);
      scan(text);
    }
  });
});
