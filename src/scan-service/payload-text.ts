import { isUtf8 } from 'node:buffer';
import { gunzipSync, inflateSync } from 'node:zlib';

/**
 * The text a binary payload (a `data:` URL, a `file` part's `file_data`) carries, by its declared
 * or sniffed character set and compression, or why it has none:
 *
 * - `media`: a known image, audio or video format (by its magic bytes), or a payload declared
 *   `image/*`, `audio/*` or `video/*` that is not text by any reading below. Not text: the model
 *   gets it as media, the provider decodes it as such.
 * - `text`: gzip or zlib-deflate data inflated (up to MAX_INFLATED characters, two layers deep),
 *   then read by its byte-order mark, its declared charset (UTF-8, Latin-1 / Windows-1252 /
 *   US-ASCII, UTF-16LE/BE), UTF-16 sniffed from its zero bytes, UTF-8 when the bytes are valid
 *   UTF-8, else Latin-1 when few bytes are above 0x7f (as in Western European text). A text more
 *   than 10 % control characters is not text.
 * - `undecodable`: anything else (a PDF, an archive, random bytes, text hidden among control
 *   bytes). It cannot be scanned; the chat proxy blocks it or flags it per
 *   security.input.undecodable_content, and never passes it silently.
 */
export type Payload = { kind: 'text'; text: string; encoding: string } | { kind: 'media' } | { kind: 'undecodable'; reason: string };

/** Most bytes an inflated payload may grow to (a decompression bomb stops here: undecodable). */
export const MAX_INFLATED = 4 * 1024 * 1024;

const MAGIC: { bytes: number[]; at?: number }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47] }, // PNG
  { bytes: [0xff, 0xd8, 0xff] }, // JPEG
  { bytes: [0x47, 0x49, 0x46, 0x38] }, // GIF8
  { bytes: [0x57, 0x45, 0x42, 0x50], at: 8 }, // RIFF....WEBP
  { bytes: [0x57, 0x41, 0x56, 0x45], at: 8 }, // RIFF....WAVE
  { bytes: [0x49, 0x44, 0x33] }, // ID3 (MP3)
  { bytes: [0xff, 0xfb] }, // MP3 frame
  { bytes: [0xff, 0xf3] },
  { bytes: [0xff, 0xf2] },
  { bytes: [0xff, 0xf1] }, // AAC ADTS
  { bytes: [0xff, 0xf9] },
  { bytes: [0x4f, 0x67, 0x67, 0x53] }, // OggS
  { bytes: [0x66, 0x4c, 0x61, 0x43] }, // fLaC
  { bytes: [0x66, 0x74, 0x79, 0x70], at: 4 }, // ....ftyp (MP4, M4A, HEIC, AVIF)
  { bytes: [0x1a, 0x45, 0xdf, 0xa3] }, // WebM / Matroska
  { bytes: [0x49, 0x49, 0x2a, 0x00] }, // TIFF
  { bytes: [0x4d, 0x4d, 0x00, 0x2a] },
];

function isMedia(b: Buffer): boolean {
  return MAGIC.some(({ bytes, at = 0 }) => b.length >= at + bytes.length && bytes.every((x, i) => b[at + i] === x));
}

const CHARSETS: Record<string, string> = {
  'utf-8': 'utf8', utf8: 'utf8',
  'iso-8859-1': 'latin1', 'iso8859-1': 'latin1', latin1: 'latin1', 'latin-1': 'latin1', 'windows-1252': 'latin1', cp1252: 'latin1', 'us-ascii': 'latin1', ascii: 'latin1',
  'utf-16le': 'utf16le', 'utf-16be': 'utf16be', 'utf-16': 'utf16',
};

/** A declared charset Warden reads, or null for none; throws nothing (an unknown one is sniffed past). */
export function charsetOf(params: string[]): string | null {
  for (const p of params) {
    const m = /^charset\s*=\s*"?([^";\s]+)"?$/i.exec(p.trim());
    if (m) return CHARSETS[m[1]!.toLowerCase()] ?? null;
  }
  return null;
}

function swap16(b: Buffer): Buffer {
  const c = Buffer.from(b.subarray(0, b.length - (b.length % 2)));
  return c.swap16();
}

/** UTF-16 from its zero bytes: most odd (LE) or even (BE) bytes of ASCII-range text are 0. */
function sniff16(b: Buffer): 'utf16le' | 'utf16be' | null {
  if (b.length < 4) return null;
  const n = Math.min(b.length, 4096) & ~1;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (b[i] === 0) even++;
    if (b[i + 1] === 0) odd++;
  }
  const half = n / 2;
  if (odd >= half * 0.4 && even < half * 0.1) return 'utf16le';
  if (even >= half * 0.4 && odd < half * 0.1) return 'utf16be';
  return null;
}

/** Share of characters that are control characters (not tab, newline, carriage return, form feed). */
function controlShare(s: string): number {
  if (!s.length) return 0;
  let c = 0;
  for (let i = 0; i < s.length; i++) {
    const x = s.charCodeAt(i);
    if ((x < 32 && x !== 9 && x !== 10 && x !== 13 && x !== 12) || (x >= 0x7f && x < 0xa0) || x === 0xfffd) c++;
  }
  return c / s.length;
}

function decodeAs(b: Buffer, enc: string): string {
  if (enc === 'utf16be') return swap16(b).toString('utf16le');
  if (enc === 'utf16le') return b.subarray(0, b.length - (b.length % 2)).toString('utf16le');
  return b.toString(enc as BufferEncoding);
}

function inflate(b: Buffer): Buffer | null {
  try {
    if (b[0] === 0x1f && b[1] === 0x8b) return gunzipSync(b, { maxOutputLength: MAX_INFLATED });
    if (b.length >= 2 && (b[0]! & 0x0f) === 8 && ((b[0]! << 8) | b[1]!) % 31 === 0) return inflateSync(b, { maxOutputLength: MAX_INFLATED });
  } catch {
    return null;
  }
  return null;
}

/** What `bytes` carry (see the module comment). `mediaType`: the declared type, '' when none. */
export function payloadText(bytes: Buffer, mediaType = '', charset: string | null = null, depth = 0): Payload {
  if (bytes.length === 0) return { kind: 'text', text: '', encoding: 'utf8' };
  if (isMedia(bytes)) return { kind: 'media' };
  const gz = bytes[0] === 0x1f && bytes[1] === 0x8b;
  const inflated = depth < 2 ? inflate(bytes) : null;
  if (inflated) {
    const inner = payloadText(inflated, '', charset, depth + 1);
    return inner.kind === 'text' ? { ...inner, encoding: `${gz ? 'gzip' : 'deflate'}+${inner.encoding}` } : inner;
  }
  if (gz) return { kind: 'undecodable', reason: depth >= 2 ? 'compressed more than two layers deep' : `gzip data that does not inflate within ${MAX_INFLATED} bytes` };
  let enc: string | null = null;
  let body = bytes;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) [enc, body] = ['utf8', bytes.subarray(3)];
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) [enc, body] = ['utf16le', bytes.subarray(2)];
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) [enc, body] = ['utf16be', bytes.subarray(2)];
  else if (charset === 'utf16') enc = sniff16(bytes) ?? 'utf16le';
  else if (charset) enc = charset;
  else enc = sniff16(bytes) ?? (isUtf8(bytes) ? 'utf8' : null);
  if (enc === null) {
    // Latin-1 when it reads like Western European text: few bytes above 0x7f.
    let high = 0;
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! >= 0x80) high++;
    if (high <= bytes.length * 0.3) enc = 'latin1';
  }
  if (enc !== null) {
    const text = decodeAs(body, enc);
    if (controlShare(text) <= 0.1) return { kind: 'text', text, encoding: enc };
  }
  if (/^(image|audio|video)\//.test(mediaType)) return { kind: 'media' };
  return {
    kind: 'undecodable',
    reason: enc === null ? 'not text in UTF-8, Latin-1 or UTF-16, and not a known image, audio or video format' : `more than 10 % control characters when read as ${enc}`,
  };
}
