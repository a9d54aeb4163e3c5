import { fold, matchesOf } from './text.js';

/**
 * Destination-like values in a tool call's arguments: where a send, payment, post, fetch,
 * deletion or command would go. Found by shape anywhere in an argument (e-mail address, URL,
 * IBAN, phone number in a phone-like field, file path in a path-like field or a command), and
 * by the argument's name for account numbers, bare hosts and recipient names. Free-text
 * fields (body, subject, message, query...) hold content, not destinations: only their
 * e-mail addresses and URLs count, and only for tools that fetch or run.
 */
export type DestinationKind = 'email' | 'url' | 'host' | 'iban' | 'account' | 'phone' | 'path' | 'name';

export interface Destination {
  kind: DestinationKind;
  value: string;
  /** The argument it is in, as a JSON path (`to`, `recipients[1].email`). */
  argument: string;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const URL_RE = /\b(?:https?|ftp|wss?):\/\/[^\s"'<>)\]]+/giu;
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b/g;
const PHONE = /(?:\+|\b00)?\d[\d ().-]{6,18}\d\b/g;
const PATH = /(?:^|[\s"'=])((?:~|\.{1,2})?\/[\w.@%+~-]+(?:\/[\w.@%+~-]*)*|[A-Za-z]:\\[^\s"']+)/g;
const HOST = /^(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}(?::\d+)?(?:\/\S*)?$/u;

const CONTENT_KEYS = /^(body|text|content|message|msg|subject|title|note|notes|memo|description|comment|caption|summary|query|q|prompt|html|markdown|reason|reference|remittance_info|purpose)$/i;
const NAME_KEYS = /^(to|recipient|recipients|payee|payee_name|beneficiary|beneficiary_name|creditor|creditor_name|account_holder|holder|name|to_name|contact|attendee|attendees|cc|bcc|user|username|handle|channel|owner|assignee)$/i;
const ACCOUNT_KEYS = /(account|acct|iban|bic|swift|routing|sort_?code|card|wallet|address)$/i;
const PHONE_KEYS = /(phone|mobile|tel|number|sms|whatsapp|msisdn|fax)$/i;
const PATH_KEYS = /(path|file|filename|dir|directory|folder|dest|destination|target|output|location)$/i;
const HOST_KEYS = /(url|uri|link|href|host|hostname|domain|endpoint|webhook|server|site|callback|destination|target)$/i;

function keyOf(path: (string | number)[]): string {
  for (let i = path.length - 1; i >= 0; i--) if (typeof path[i] === 'string') return path[i] as string;
  return '';
}

function pathString(path: (string | number)[]): string {
  let s = '';
  for (const p of path) s += typeof p === 'number' ? `[${p}]` : s ? `.${p}` : p;
  return s || 'arguments';
}

function strings(v: unknown, path: (string | number)[], out: { path: (string | number)[]; text: string }[]): void {
  if (typeof v === 'string') out.push({ path, text: v });
  else if (typeof v === 'number' && Number.isFinite(v)) out.push({ path, text: String(v) });
  else if (Array.isArray(v)) v.forEach((x, i) => strings(x, [...path, i], out));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) strings(x, [...path, k], out);
}

/** The destinations in a tool call's arguments (a JSON string; anything else is read as one text). */
export function destinations(args: string, kind: 'sink_text' | 'sink_command'): Destination[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(args);
  } catch {
    parsed = args;
  }
  const fields: { path: (string | number)[]; text: string }[] = [];
  strings(parsed, [], fields);
  const out: Destination[] = [];
  const seen = new Set<string>();
  const add = (d: Destination) => {
    const k = `${d.kind}\u0000${d.value}\u0000${d.argument}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(d);
    }
  };
  for (const f of fields) {
    const key = keyOf(f.path);
    const argument = pathString(f.path);
    const text = f.text.trim();
    if (!text) continue;
    const content = CONTENT_KEYS.test(key);
    if (content && kind !== 'sink_command') continue;
    let shaped = false;
    for (const m of matchesOf(EMAIL, text)) {
      add({ kind: 'email', value: m[0], argument });
      shaped = true;
    }
    for (const m of matchesOf(URL_RE, text)) {
      add({ kind: 'url', value: m[0].replace(/[.,;:!?]+$/, ''), argument });
      shaped = true;
    }
    if (content) continue;
    for (const m of matchesOf(IBAN, text)) {
      add({ kind: 'iban', value: m[0], argument });
      shaped = true;
    }
    if (!shaped && HOST_KEYS.test(key) && HOST.test(text)) {
      add({ kind: 'host', value: text, argument });
      shaped = true;
    }
    if (!shaped && PHONE_KEYS.test(key)) {
      for (const m of matchesOf(PHONE, text)) {
        add({ kind: 'phone', value: m[0], argument });
        shaped = true;
      }
    }
    if (!shaped && ACCOUNT_KEYS.test(key) && /\d{6,}/.test(text.replace(/[\s-]/g, ''))) {
      add({ kind: 'account', value: text, argument });
      shaped = true;
    }
    if (!shaped && (PATH_KEYS.test(key) || kind === 'sink_command')) {
      for (const m of matchesOf(PATH, text)) {
        add({ kind: 'path', value: m[1]!, argument });
        shaped = true;
      }
    }
    if (!shaped && NAME_KEYS.test(key) && /\p{L}{2,}/u.test(text) && text.length <= 100) add({ kind: 'name', value: text, argument });
  }
  return out;
}

/** The form a destination is compared in: addresses and hosts folded, numbers as their digits and letters. */
export function destinationKey(d: Pick<Destination, 'kind' | 'value'>): string {
  switch (d.kind) {
    case 'iban':
    case 'account':
      return d.value.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
    case 'phone': {
      const digits = d.value.replace(/\D/g, '');
      return digits.slice(-9);
    }
    case 'url':
      return fold(d.value).replace(/\/+$/, '');
    default:
      return fold(d.value);
  }
}

/** The host of a URL or host destination, folded, or null. */
export function hostOf(d: Pick<Destination, 'kind' | 'value'>): string | null {
  if (d.kind === 'email') return fold(d.value.slice(d.value.lastIndexOf('@') + 1));
  if (d.kind !== 'url' && d.kind !== 'host') return null;
  try {
    return fold(new URL(d.kind === 'host' ? `https://${d.value}` : d.value).hostname).replace(/^www\./, '');
  } catch {
    return null;
  }
}
