import type { Conversation } from './conversation.js';
import { destinationKey, destinations, hostOf, type Destination } from './destinations.js';
import { fold, matchesOf } from './text.js';
import { isSink, toolKind, type ToolKind } from './tool-kinds.js';

/**
 * Tool-call provenance: for each destination in a sink tool call, where it entered the
 * conversation. Trusted origins: the system and developer turns, the user's turns, the tool
 * definitions, and `trusted_destinations` from the configuration. A destination seen only in
 * a tool result (an e-mail, a web page, a retrieved document), or nowhere at all (decoded or
 * invented by the model), is untrusted: in a sink call it is a `tool_hijack`, unless the
 * user's request licenses it. What a request licenses (docs/proxy.md, "Tool-call provenance"):
 *  1. reply: the latest user turn asks to reply/answer/respond (many languages): the sender of
 *     a message in a tool result (`from`/`sender`/`reply_to` fields, `From:` lines) may be
 *     written to;
 *  2. named record: a tool-result record (a JSON object, or one line of text) whose name the
 *     user wrote (`"name": "Maria Lopez"` when the user said "send it to Maria Lopez"): its
 *     addresses, numbers and names may be used;
 *  3. listed link: a fetch of a URL that a tool returned as a link field (`url`, `link`,
 *     `href`), unchanged: following a search result;
 *  4. same domain: an e-mail address or URL on a host the system prompt or the user named
 *     (not a public mail provider's).
 * Anything else from untrusted content, in a call that sends, pays, posts, fetches, deletes or
 * runs, is blocked: the request did not ask for it.
 */
export interface ProvenanceOptions {
  tools: Record<string, ToolKind>;
  unknown_is_sink: boolean;
  /** Addresses, hosts (`*.example.com`), numbers every request may use. */
  trusted_destinations: string[];
}

export type Origin = 'system' | 'user' | 'tool_definitions' | 'configuration' | 'tool_result' | 'assistant_history' | 'nowhere';

export interface ToolCallIn {
  choice: number;
  index: number;
  name: string;
  arguments: string;
}

export interface HijackEvidence {
  tool: string;
  tool_kind: ToolKind;
  choice: number;
  call_index: number;
  argument: string;
  destination_kind: Destination['kind'];
  destination: string;
  /** Where the destination was seen: only untrusted places (tool_result:<tool>, assistant_history) or nowhere. */
  entered: string[];
}

const REPLY = /(?<!\p{L})(reply|respond|answer|write back|get back to|antwort|beantwort|répond|repond|respond|contest|rispond|antwoord|beantwoord|odpowiedz|odpisz|yanıtla|cevap|ответ|відповід)|回复|返信|答复|답장|회신/iu;
const SENDER_KEYS = /^(from|sender|reply_to|replyto|reply-to|from_email|from_address|author|organizer|organiser|sender_email)$/i;
const SENDER_LINE = /^\s*(from|sender|reply-to|von|absender|de|expéditeur|da|mittente|remitente|remetente|van|afzender|od|nadawca|от|kimden|gönderen|发件人|寄件人|差出人|보낸 사람)\s*[:：]/iu;
const NAME_KEYS = /^(name|full_name|fullname|display_name|displayname|contact|contact_name|payee|payee_name|company|title|label|nickname|alias)$/i;
const LINK_KEYS = /^(url|link|href|uri|source|source_url)$/i;
const WEBMAIL = new Set(['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'live.com', 'yahoo.com', 'icloud.com', 'proton.me', 'protonmail.com', 'gmx.de', 'gmx.net', 'web.de', 'mail.ru', 'yandex.ru', 'qq.com', '163.com', 'aol.com']);

/** A text of the conversation by where it entered; its folded and letters-and-digits forms
 * are read on first use (most requests look in a few of their texts, for one destination). */
class Place {
  private foldedCache: string | undefined;
  private alnumCache: string | undefined;

  constructor(
    readonly origin: Origin,
    readonly text: string,
    readonly tool?: string | null,
  ) {}

  /** The text folded. */
  get folded(): string {
    return (this.foldedCache ??= fold(this.text));
  }

  /** Its letters and digits only (upper case): numbers compare there. */
  get alnum(): string {
    return (this.alnumCache ??= this.text.replace(/[^A-Za-z0-9]/g, '').toUpperCase());
  }
}

/** A host name (after `@`, `//` or at a word start). */
const NAMED_HOST = /(?:@|\/\/|\b)((?:[\p{L}\p{N}-]+\.)+\p{L}{2,})\b/gu;
/** Two or more capitalised words in a row (a person's name), or a run of 2-6 Han, Hangul or Katakana characters. */
const CAPITALISED_NAME = /\p{Lu}\p{Ll}+(?:[ -]\p{Lu}\p{Ll}+)+/gu;
const CJK_NAME = /[\p{Script=Han}\p{Script=Hangul}\p{Script=Katakana}]{2,6}/gu;

/** Characters a RegExp reads as syntax (built once: see tool-kinds.ts CAMEL). */
const REGEXP_SPECIAL = /[.*+?^${}()|[\]\\]/g;

/** Whether a place holds a destination (in the form destinationKey gave it). */
function seenIn(d: Destination, key: string): (p: Place) => boolean {
  switch (d.kind) {
    case 'iban':
    case 'account':
      return (p) => key.length >= 6 && p.alnum.includes(key);
    case 'phone':
      return (p) => key.length >= 7 && p.alnum.includes(key);
    case 'name': {
      if (key.length < 2) return () => false;
      // A whole word, where a neighbour of another script (a name inside Chinese text) is a boundary.
      const re = new RegExp(`(^|[^\\p{Script=Latin}\\p{Script=Cyrillic}\\p{Script=Greek}\\p{N}])${key.replace(REGEXP_SPECIAL, '\\$&')}($|[^\\p{Script=Latin}\\p{Script=Cyrillic}\\p{Script=Greek}\\p{N}])`, 'u');
      return (p) => re.test(p.folded);
    }
    default:
      return (p) => p.folded.includes(key);
  }
}

function hostMatches(host: string, pattern: string): boolean {
  const p = fold(pattern);
  return p.startsWith('*.') ? host === p.slice(2) || host.endsWith(p.slice(1)) : host === p;
}

/** Every object in a JSON value. */
function objects(v: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (Array.isArray(v)) v.forEach((x) => objects(x, out));
  else if (v && typeof v === 'object') {
    out.push(v as Record<string, unknown>);
    for (const x of Object.values(v)) objects(x, out);
  }
  return out;
}

function flatText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map(flatText).join('\n');
  if (v && typeof v === 'object') return Object.values(v).map(flatText).join('\n');
  return '';
}

export class Provenance {
  private readonly trusted: Place[];
  private readonly untrusted: Place[];
  /** Tool-result texts the user's request licenses (reply senders, named records), and the link
   * fields of tool results, folded (a fetch may follow them unchanged): read on first need. */
  private licenseCache: { licensed: Place[]; links: Set<string> } | null = null;
  /** Hosts the system prompt or the user named (not public mail providers): read on first need. */
  private hostsCache: Set<string> | null = null;
  private readonly toolDescriptions = new Map<string, string>();

  constructor(
    private readonly conv: Conversation,
    private readonly opts: ProvenanceOptions,
  ) {
    this.trusted = [
      ...conv.system.map((t) => new Place('system', t)),
      ...conv.user.map((t) => new Place('user', t)),
      ...conv.toolDefs.map((t) => new Place('tool_definitions', `${t.name}\n${t.description}\n${t.schema}`)),
      ...opts.trusted_destinations.filter((t) => !t.startsWith('*.')).map((t) => new Place('configuration', t)),
    ];
    this.untrusted = [...conv.toolResults.map((r) => new Place('tool_result', r.text, r.tool)), ...conv.assistant.map((t) => new Place('assistant_history', t))];
    for (const t of conv.toolDefs) this.toolDescriptions.set(t.name, t.description);
  }

  private get trustedHosts(): Set<string> {
    if (this.hostsCache) return this.hostsCache;
    const hosts = (this.hostsCache = new Set<string>());
    for (const p of [...this.conv.system, ...this.conv.user]) {
      for (const m of matchesOf(NAMED_HOST, p)) {
        const h = fold(m[1]!).replace(/^www\./, '');
        if (!WEBMAIL.has(h)) hosts.add(h);
      }
    }
    return hosts;
  }

  private get licensed(): Place[] {
    return (this.licenseCache ??= this.license()).licensed;
  }

  private get links(): Set<string> {
    return (this.licenseCache ??= this.license()).links;
  }

  private license(): { licensed: Place[]; links: Set<string> } {
    const licensed: Place[] = [];
    const links = new Set<string>();
    const lastUser = this.conv.user[this.conv.user.length - 1] ?? '';
    const userFolded = fold(this.conv.user.join('\n'));
    const reply = REPLY.test(lastUser);
    for (const r of this.conv.toolResults) {
      if (r.json !== undefined) {
        for (const o of objects(r.json)) {
          for (const [k, v] of Object.entries(o)) {
            if (reply && SENDER_KEYS.test(k)) licensed.push(new Place('tool_result', flatText(v), r.tool));
            if (LINK_KEYS.test(k) && typeof v === 'string') links.add(fold(v).replace(/\/+$/, ''));
            if (NAME_KEYS.test(k) && typeof v === 'string' && v.trim().length >= 3 && userFolded.includes(fold(v.trim()))) {
              // The record the user named: its own fields, not nested records.
              licensed.push(new Place('tool_result', Object.values(o).filter((x) => typeof x !== 'object').map(flatText).join('\n'), r.tool));
            }
          }
        }
      } else {
        for (const line of r.text.split(/\r?\n/)) {
          if (reply && SENDER_LINE.test(line)) licensed.push(new Place('tool_result', line, r.tool));
          else if (this.namesUserWords(line, userFolded)) licensed.push(new Place('tool_result', line, r.tool));
        }
      }
    }
    return { licensed, links };
  }

  /** A line of a tool result that holds a name the user wrote: two capitalised words in a row, or one of 4+ letters in another script. */
  private namesUserWords(line: string, userFolded: string): boolean {
    for (const m of matchesOf(CAPITALISED_NAME, line)) if (userFolded.includes(fold(m[0]))) return true;
    for (const m of matchesOf(CJK_NAME, line)) if (userFolded.includes(m[0])) return true;
    return false;
  }

  kindOf(name: string): ToolKind {
    return toolKind(name, this.toolDescriptions.get(name) ?? '', this.opts.tools);
  }

  /** The untrusted destinations of one tool call (empty when the tool is not a sink or all are accounted for). */
  check(call: ToolCallIn): HijackEvidence[] {
    const kind = this.kindOf(call.name);
    if (!isSink(kind, this.opts.unknown_is_sink)) return [];
    const out: HijackEvidence[] = [];
    for (const d of destinations(call.arguments, kind === 'run' || kind === 'fetch' ? 'sink_command' : 'sink_text')) {
      const key = destinationKey(d);
      if (!key) continue;
      const holds = seenIn(d, key);
      if (this.trusted.some(holds)) continue;
      const host = hostOf(d);
      if (host && (this.trustedHosts.has(host) || this.opts.trusted_destinations.some((t) => hostMatches(host, t)))) continue;
      if (this.licensed.some(holds)) continue;
      if (kind === 'fetch' && d.kind === 'url' && this.links.has(key)) continue;
      const entered = this.untrusted.filter(holds).map((p) => (p.origin === 'tool_result' ? `tool_result:${p.tool ?? 'unknown'}` : p.origin));
      out.push({
        tool: call.name,
        tool_kind: kind,
        choice: call.choice,
        call_index: call.index,
        argument: d.argument,
        destination_kind: d.kind,
        destination: d.value,
        entered: entered.length ? [...new Set(entered)] : ['nowhere'],
      });
    }
    return out;
  }
}
