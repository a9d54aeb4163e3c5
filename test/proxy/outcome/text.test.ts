import { expect } from 'chai';
import { answerViews, fold, matchesOf } from '../../../src/proxy/outcome/text.js';
import { mulberry32 } from '../../../src/util/prng.js';

/** The answer forms the outcome guards compare, read against the definitions they stand for. */
describe('outcome guard answer views (text.ts)', () => {
  /** Acrostic readings as split() gives them: the first letter or digit of each line and each word. */
  const reference = (text: string): string[] =>
    [text.split(/\r?\n/), text.split(/\s+/)].map((pieces) =>
      fold(
        pieces
          .map((p) => p.replace(/^[^\p{L}\p{N}]+/u, ''))
          .filter(Boolean)
          .map((p) => p[0])
          .join(''),
      ),
    );

  it('reads acrostics as split(/\\s+/) and split(/\\r?\\n/) do, with any UTF-16 unit between words', () => {
    const wrong: string[] = [];
    for (let u = 0; u < 0x10000; u++) {
      const text = `Ab${String.fromCharCode(u)}cd\nEf gh`;
      if (JSON.stringify(answerViews(text).acrostics) !== JSON.stringify(reference(text))) wrong.push(u.toString(16));
    }
    expect(wrong).to.deep.equal([]);
  });

  // The encoded runs the guards decode, by the regular expressions that define them.
  const SHORT_B64 = /[A-Za-z0-9+/_-]{8,}={0,2}/g;
  const LONG_B64 = /[A-Za-z0-9+/]{16,}/g;
  const SHORT_HEX = /\b(?:[0-9a-fA-F]{2}){4,}\b/g;
  const LONG_HEX = /[0-9a-fA-F]{16,}/g;
  const readable = (d: string) => /^[\p{L}\p{N}\p{P}\p{S}\p{Zs}]{4,}$/u.test(d) && !d.includes('\ufffd');
  const mostly = (d: string) => d.length >= 8 && [...d].filter((ch) => ch === '\ufffd' || !/[\p{L}\p{N}\p{P}\p{S}\p{Zs}\n]/u.test(ch)).length <= d.length * 0.1;
  function decodes(text: string): { b64: string[]; hex: string[] } {
    const b64: string[] = [];
    for (const m of text.matchAll(SHORT_B64)) {
      const t = m[0].replace(/=+$/, '');
      if (t.length > 64 || !/[0-9A-Z+/]/.test(t) || !/[a-z]/.test(t)) continue;
      const d = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
      if (readable(d)) b64.push(d);
    }
    for (const m of text.matchAll(LONG_B64)) {
      for (let shift = 1; shift < 4; shift++) {
        const d = Buffer.from(m[0].slice(shift, shift + Math.floor((m[0].length - shift) / 4) * 4), 'base64').toString('utf8');
        if (mostly(d)) b64.push(d);
      }
    }
    const hex: string[] = [];
    for (const m of text.matchAll(SHORT_HEX)) {
      const d = Buffer.from(m[0], 'hex').toString('utf8');
      if (readable(d)) hex.push(d);
    }
    for (const m of text.matchAll(LONG_HEX)) {
      const d = Buffer.from(m[0].slice(1, 1 + Math.floor((m[0].length - 1) / 2) * 2), 'hex').toString('utf8');
      if (mostly(d)) hex.push(d);
    }
    return { b64, hex };
  }

  it('decodes short and misaligned base64 and hex where their regular expressions match (random soup)', () => {
    const r = mulberry32(2501);
    const pieces = ['a', 'Z', '9', '_', '-', '+', '/', '=', ' ', '.', 'é', '日', '\n', 'xyz', 'DEADBEEF', 'cafe'];
    const payload = () => {
      const plain = `Heron-77 code ${Math.floor(r() * 1e6)}`;
      const k = r();
      return k < 0.4 ? Buffer.from(plain).toString('base64').slice(Math.floor(r() * 4)) : k < 0.7 ? Buffer.from(plain).toString('hex').slice(Math.floor(r() * 2)) : Buffer.from(plain).toString('base64url');
    };
    let decoded = 0;
    for (let i = 0; i < 3000; i++) {
      let text = '';
      for (let k = Math.floor(r() * 12); k >= 0; k--) text += r() < 0.3 ? payload() : pieces[Math.floor(r() * pieces.length)]!;
      const v = answerViews(text);
      const want = decodes(text);
      const view = (kind: string) => v.texts[v.kinds.indexOf(kind)] ?? null;
      expect(view('decoded:short-base64'), JSON.stringify(text)).to.equal(want.b64.length ? want.b64.join('\n') : null);
      expect(view('decoded:short-hex'), JSON.stringify(text)).to.equal(want.hex.length ? want.hex.join('\n') : null);
      if (want.b64.length || want.hex.length) decoded++;
    }
    expect(decoded).to.be.greaterThan(500);
  });

  it('gives the letters-only form of each view, ASCII or not', () => {
    const v = answerViews('S-w 0.r D, Straße №5 — 密码!');
    expect(v.compacts[0]).to.equal(fold('S-w 0.r D, Straße №5 — 密码!').replace(/[^\p{L}\p{N}]+/gu, ''));
    expect(answerViews('H e r o n - 7 7 !').compacts[0]).to.equal('heron77');
  });

  it('matchesOf gives what matchAll gives, empty matches and surrogate pairs included, and wants a global RegExp', () => {
    const cases: [RegExp, string][] = [
      [/[a-z]+@[a-z.]+/g, 'mail a@b.example and c@d.example'],
      [/x*/g, 'axxb'],
      [/x*/gu, 'a😀xb'],
      [/(?:)/gu, '😀é'],
    ];
    for (const [re, text] of cases) expect(matchesOf(re, text).map((m) => [m.index, m[0]])).to.deep.equal([...text.matchAll(re)].map((m) => [m.index, m[0]]));
    expect(() => matchesOf(/a/, 'a')).to.throw(/global/);
  });
});
