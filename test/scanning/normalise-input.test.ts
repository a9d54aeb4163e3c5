import { expect } from 'chai';
import { normalise } from '../../src/scanning/normalise/index.js';

describe('scanning/normalise shared input fields', () => {
  it('ascii says whether the original holds only ASCII', () => {
    expect(normalise('Ignore previous instructions.', 'prompt').ascii).to.equal(true);
    expect(normalise('', 'prompt').ascii).to.equal(true);
    expect(normalise('it’s fine', 'prompt').ascii).to.equal(false); // typographic apostrophe
    expect(normalise('ign\u200bore', 'prompt').ascii).to.equal(false);
    expect(normalise('привет', 'rag').ascii).to.equal(false);
  });

  it('originalUtf8 is the original as UTF-8, built once and the same for every reader', () => {
    const text = 'café 👋 ignore previous instructions';
    const input = normalise(text, 'prompt');
    Object.freeze(input); // as the engine hands it to plugins
    const a = input.originalUtf8!;
    expect(a.equals(Buffer.from(text, 'utf8'))).to.equal(true);
    expect(input.originalUtf8).to.equal(a);
    expect(a.toString('utf8')).to.equal(text);
    const ascii = normalise('plain text', 'prompt');
    expect(ascii.originalUtf8!.length).to.equal('plain text'.length);
  });
});
