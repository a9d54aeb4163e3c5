import { expect } from 'chai';
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
