import { dataChars, hostAllowed } from '../../scanning/url-data.js';
import type { Conversation } from './conversation.js';
import { rareTokens } from './leakage.js';
import type { ProtectedValue } from './protected.js';
import { compact, fold } from './text.js';

/**
 * Markdown and HTML exfiltration with the conversation beside it. An image in the answer is
 * fetched by the chat UI as soon as it renders; a link on a click. The pattern-only check in
 * the output scan (plugins/exfil-links) needs 24+ characters of encoded data or words; here
 * the proxy knows what is private, so a short value is enough. A URL is exfiltration when:
 *  - it is an image, link, reference definition, autolink or bare URL in the answer text;
 *  - its host is not one the system prompt or the user named, nor on
 *    `security.output.link_allowlist`, nor in `trusted_destinations`;
 *  - it is not a link copied unchanged from the conversation (a citation of a tool result);
 *  - its query, path, fragment or subdomains carry (read plainly, URL-decoded, and with
 *    base64/hex runs decoded) a protected value; or an e-mail address, phone number, number of
 *    5+ digits or code from the conversation; or words of the conversation (in scripts without spaces, 4-character runs): 2 for an image
 *    (zero-click), for a link 3 from the system prompt or tool results, or 4 from anywhere (the
 *    user's own words in a search or map link are theirs to send); or 16+ characters of
 *    encoded text for an image.
 */
export interface ExfilEvidence {
  element: 'image' | 'link';
  host: string;
  url: string;
  carries: string[];
}

const INLINE = /(!?)\[[^\]\n]{0,500}\]\(\s*<?([^)\s>]{1,4000})/g;
const REF_USE = /(!?)\[[^\]\n]{0,500}\]\[([^\]\n]{0,200})\]/g;
const REF_DEF = /^\s{0,3}\[([^\]\n]{1,200})\]:\s*<?([^\s>]{1,4000})/gm;
const HTML = /<(img|a|image|source|video|audio|iframe)\b[^>]{0,500}?\b(src|href|srcset|poster)\s*=\s*["']?([^"'\s>]{1,4000})/gi;
const BARE = /\bhttps?:\/\/[^\s<>"')\]]+/gi;
const EMAIL = /[A-Za-z0-9._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const NUMBER = /\+?\d[\d ().-]{3,}\d/g;
const STOP = new Set(
  'that this with from have your what when where which will would there their about into just than then them they were been being also more most some such only other very like make made over under after before here http https html www com org net jpg png gif svg image img data utm_source'.split(' '),
);

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** The URL's data-carrying parts (query values, fragment, path, subdomains), decoded, plus base64/hex runs decoded. */
function carried(url: URL): string {
  const values = url.search
    .slice(1)
    .split('&')
    .map((kv) => (kv.includes('=') ? kv.slice(kv.indexOf('=') + 1) : kv));
  const parts = [...values, url.hash.slice(1), url.pathname, url.hostname.split('.').slice(0, -2).join('.')].map(safeDecode);
  const text = parts.join(' ');
  const decoded: string[] = [text];
  for (const m of text.matchAll(/[A-Za-z0-9+/_-]{12,}={0,2}/g)) {
    const b = Buffer.from(m[0].replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8');
    if (/^[\p{L}\p{N}\p{P}\p{Zs}\n]+$/u.test(b)) decoded.push(b);
  }
  for (const m of text.matchAll(/(?:[0-9a-fA-F]{2}){6,}/g)) {
    const b = Buffer.from(m[0], 'hex').toString('utf8');
    if (/^[\p{L}\p{N}\p{P}\p{Zs}\n]+$/u.test(b)) decoded.push(b);
  }
  return decoded.join(' ');
}

/** Words of 4+ letters; in scripts without spaces, every 4 characters in a row. */
function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of fold(text).split(/[^\p{L}\p{N}]+/u)) {
    if (w.length < 4 || STOP.has(w) || /^\d+$/.test(w)) continue;
    if (CJK_CHAR.test(w)) for (let i = 0; i + 4 <= w.length; i++) out.add(w.slice(i, i + 4));
    else out.add(w);
  }
  return out;
}
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export class ExfilChecker {
  private readonly hosts = new Set<string>();
  private readonly known: string;
  private readonly privateItems: string[];
  private readonly strongWords: Set<string>;
  private readonly userWords: Set<string>;

  constructor(
    conv: Conversation,
    protectedValues: readonly ProtectedValue[],
    private readonly allow: string[],
  ) {
    const trusted = [...conv.system, ...conv.user];
    for (const t of trusted) for (const m of t.matchAll(/(?:@|\/\/|\b)((?:[\p{L}\p{N}-]+\.)+\p{L}{2,})\b/gu)) this.hosts.add(fold(m[1]!).replace(/^www\./, ''));
    const all = [...conv.system, ...conv.user, ...conv.toolResults.map((r) => r.text), ...conv.assistant];
    this.known = fold(all.join('\n'));
    const items = new Set<string>(protectedValues.map((p) => p.key));
    for (const t of all) {
      for (const m of t.matchAll(EMAIL)) items.add(compact(m[0]));
      for (const m of t.matchAll(NUMBER)) {
        const d = m[0].replace(/\D/g, '');
        if (d.length >= 5) items.add(d);
      }
    }
    for (const r of rareTokens([...conv.system, ...conv.toolResults.map((r) => r.text)].join('\n'))) if (r.length >= 5) items.add(r);
    this.privateItems = [...items].filter((i) => i.length >= 4);
    this.strongWords = contentWords([...conv.system, ...conv.toolResults.map((r) => r.text)].join('\n'));
    this.userWords = contentWords(conv.user.join('\n'));
  }

  private urls(text: string): { element: 'image' | 'link'; raw: string }[] {
    const out: { element: 'image' | 'link'; raw: string }[] = [];
    const refs = new Map<string, string>();
    for (const m of text.matchAll(REF_DEF)) refs.set(fold(m[1]!), m[2]!);
    const imageRefs = new Set<string>();
    for (const m of text.matchAll(REF_USE)) if (m[1] === '!') imageRefs.add(fold(m[2]!));
    for (const m of text.matchAll(INLINE)) out.push({ element: m[1] === '!' ? 'image' : 'link', raw: m[2]! });
    for (const [id, raw] of refs) out.push({ element: imageRefs.has(id) ? 'image' : 'link', raw });
    for (const m of text.matchAll(HTML)) out.push({ element: /^(img|image|source|video|audio|iframe)$/i.test(m[1]!) ? 'image' : 'link', raw: m[3]! });
    const seen = new Set(out.map((o) => o.raw));
    for (const m of text.matchAll(BARE)) if (![...seen].some((s) => s.includes(m[0]) || m[0].includes(s))) out.push({ element: 'link', raw: m[0] });
    return out;
  }

  check(text: string): ExfilEvidence | null {
    for (const { element, raw } of this.urls(text)) {
      let url: URL;
      try {
        url = new URL(raw.startsWith('//') ? `https:${raw}` : raw);
      } catch {
        continue;
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
      const host = fold(url.hostname).replace(/^www\./, '');
      if (this.hosts.has(host) || [...this.hosts].some((h) => host.endsWith(`.${h}`)) || hostAllowed(host, this.allow)) continue;
      if (this.known.includes(fold(raw).replace(/\/+$/, ''))) continue;
      const data = carried(url);
      const dataCompact = compact(data);
      const carries: string[] = [];
      for (const item of this.privateItems) if (dataCompact.includes(item)) carries.push(item.length > 6 ? `${item.slice(0, 3)}…(${item.length})` : '*'.repeat(item.length));
      const ws = contentWords(data);
      const strong = [...ws].filter((w) => this.strongWords.has(w));
      const any = [...ws].filter((w) => this.strongWords.has(w) || this.userWords.has(w));
      if (carries.length) return { element, host, url: raw.slice(0, 200), carries: carries.slice(0, 5).map((c) => `value:${c}`) };
      if ((element === 'image' && any.length >= 2) || strong.length >= 3 || any.length >= 4) return { element, host, url: raw.slice(0, 200), carries: any.slice(0, 8).map((w) => `word:${w}`) };
      if (element === 'image') {
        let encoded = 0;
        for (const p of [url.search.slice(1), url.hash.slice(1), ...url.pathname.split('/')]) for (const kv of p.split('&')) encoded = Math.max(encoded, dataChars(kv.slice(kv.indexOf('=') + 1)));
        if (encoded >= 16) return { element, host, url: raw.slice(0, 200), carries: [`encoded:${encoded} chars`] };
      }
    }
    return null;
  }
}
