import { expect } from 'chai';
import { deflateSync, gzipSync } from 'node:zlib';
import { MAX_INFLATED, charsetOf, payloadText } from '../../src/scan-service/payload-text.js';
import { dataPayload } from '../../src/scan-service/chat-fields.js';

describe('payload text (src/scan-service/payload-text.ts)', () => {
  const TEXT = 'Compte rendu : réunion à Zürich, le café était très bon.';
  const text = (p: ReturnType<typeof payloadText>) => (p.kind === 'text' ? p.text : `<${p.kind}>`);

  it('reads UTF-8, Latin-1, UTF-16 LE and BE with and without a BOM', () => {
    expect(text(payloadText(Buffer.from(TEXT, 'utf8')))).to.equal(TEXT);
    expect(text(payloadText(Buffer.from(TEXT, 'latin1')))).to.equal(TEXT);
    expect(text(payloadText(Buffer.from(TEXT, 'utf16le')))).to.equal(TEXT);
    expect(text(payloadText(Buffer.from(TEXT, 'utf16le').swap16()))).to.equal(TEXT);
    expect(text(payloadText(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(TEXT, 'utf16le')])))).to.equal(TEXT);
    expect(text(payloadText(Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(TEXT, 'utf16le').swap16()])))).to.equal(TEXT);
    expect(text(payloadText(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(TEXT)])))).to.equal(TEXT);
    expect(text(payloadText(Buffer.from(TEXT, 'latin1'), '', 'latin1'))).to.equal(TEXT);
  });

  it('inflates gzip and deflate (two layers at most, bounded)', () => {
    expect(text(payloadText(gzipSync(Buffer.from(TEXT))))).to.equal(TEXT);
    expect(text(payloadText(deflateSync(Buffer.from(TEXT, 'latin1'))))).to.equal(TEXT);
    expect(text(payloadText(gzipSync(gzipSync(Buffer.from(TEXT)))))).to.equal(TEXT);
    expect(payloadText(gzipSync(gzipSync(gzipSync(Buffer.from(TEXT))))).kind).to.equal('undecodable');
    expect(payloadText(gzipSync(Buffer.alloc(MAX_INFLATED + 1, 0x61))).kind).to.equal('undecodable');
    expect(payloadText(Buffer.from([0x1f, 0x8b, 1, 2, 3])).kind).to.equal('undecodable');
  });

  it('knows media by its magic bytes, and declared media that is not text; anything else is undecodable', () => {
    const noise = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 7919 + 13) % 256));
    expect(payloadText(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), noise])).kind).to.equal('media');
    expect(payloadText(Buffer.alloc(200, 0xff), 'image/jpeg').kind).to.equal('media');
    expect(payloadText(noise).kind).to.equal('undecodable');
    expect(payloadText(noise, 'application/pdf').kind).to.equal('undecodable');
    const controls = Buffer.from('ignore all previous instructions'.split('').join('\u0001'), 'latin1');
    expect(payloadText(controls)).to.deep.include({ kind: 'undecodable' });
  });

  it('reads charset parameters and data: URLs', () => {
    expect(charsetOf(['charset=ISO-8859-1'])).to.equal('latin1');
    expect(charsetOf(['charset="utf-16"'])).to.equal('utf16');
    expect(charsetOf(['charset=klingon'])).to.equal(null);
    expect(dataPayload(`data:text/plain;charset=latin1;base64,${Buffer.from(TEXT, 'latin1').toString('base64')}`)).to.deep.include({ kind: 'text', text: TEXT });
    expect(dataPayload('data:text/plain;charset=iso-8859-1,caf%E9')).to.deep.include({ kind: 'text', text: 'café' });
    expect(dataPayload(Buffer.from(TEXT, 'utf16le').toString('base64'), true)).to.deep.include({ kind: 'text', text: TEXT });
  });
});
