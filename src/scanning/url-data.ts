/**
 * What in a URL reads as data carried away, and whether a host is on an allow list: the
 * exfil-links detector (plugins/exfil-links) and the proxy's markdown-exfiltration guard
 * (src/proxy/outcome/markdown-exfil.ts) judge a URL by the same measure.
 */
import { isUtf8 } from 'node:buffer';
import { mostlyPrintable } from './normalise/decode.js';

const BASE64 = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX = /(?:[0-9a-fA-F]{2}){8,}/g;
/** Three or more words apart by spaces once decoded (`+` and %20 are spaces in a query). */
const WORDS = /[A-Za-z0-9'.,:;!?-]+(?:\s+[A-Za-z0-9'.,:;!?-]+){2,}/g;

function decode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** Base64 (either alphabet) or hex that decodes to text: an encoded message, not a hash or an id. */
function decodesToText(run: string, hex: boolean): boolean {
  const bytes = hex ? Buffer.from(run, 'hex') : Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length >= 8 && isUtf8(bytes) && mostlyPrintable(bytes.toString('utf8'));
}

/** Characters of one URL part (a query key or value, the fragment, a path segment) that look like data. */
export function dataChars(part: string): number {
  const text = decode(part);
  let n = 0;
  for (const m of text.matchAll(WORDS)) n = Math.max(n, m[0].length);
  let encoded = 0;
  for (const m of text.matchAll(BASE64)) {
    const t = m[0].replace(/=+$/, '');
    if (/[A-Z]/.test(t) && /[a-z]/.test(t) && decodesToText(t.slice(0, t.length - (t.length % 4 === 1 ? 1 : 0)), false)) encoded += t.length;
  }
  for (const m of text.matchAll(HEX)) if (decodesToText(m[0], true)) encoded += m[0].length;
  return Math.max(n, encoded);
}

/** Whether a host is one of `allow` (`*.example.com`: any subdomain of it). */
export function hostAllowed(host: string, allow: string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  for (const a of allow) {
    const e = a.toLowerCase().replace(/\.$/, '');
    if (e.startsWith('*.')) {
      if (h.endsWith(e.slice(1))) return true;
    } else if (h === e) return true;
  }
  return false;
}
