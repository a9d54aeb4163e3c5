/**
 * What a tool does, as far as tool-call provenance cares: a sink sends, pays, posts, fetches,
 * deletes or runs something, so a destination in its arguments is where data or money goes.
 * `read` tools (search, look up, list, get) are not sinks.
 *
 * A deployment declares its tools in `security.outcome.tools` (`{send_invoice: pay, lookup:
 * read}`): that wins. Otherwise the kind is read from the tool's name (split at `_`, `-`, `.`
 * and camel case), then from its description; a tool whose name and description say nothing
 * is `unknown`, treated as a sink when `security.outcome.tool_hijack.unknown_is_sink` (default
 * true: a tool nobody described may well send).
 */
export type ToolKind = 'send' | 'pay' | 'post' | 'fetch' | 'delete' | 'run' | 'read' | 'unknown';
export const TOOL_KINDS: readonly ToolKind[] = ['send', 'pay', 'post', 'fetch', 'delete', 'run', 'read', 'unknown'];

const NAME_WORDS: [ToolKind, RegExp][] = [
  ['pay', /^(pay|payment|payments|transfer|wire|remit|payout|refund|sepa|iban|zelle|venmo|paypal|invoice|checkout|purchase|buy|order)$/],
  ['send', /^(send|email|mail|gmail|outlook|smtp|sms|message|msg|forward|fwd|reply|notify|notification|dm|whatsapp|telegram|slack|call|dial|invite|share)$/],
  ['post', /^(post|publish|tweet|upload|submit|comment|create|update|write|save|put|webhook|push|commit|append|insert|sync|export)$/],
  ['fetch', /^(fetch|browse|browser|http|https|request|curl|wget|download|visit|navigate|open|url|scrape|crawl|load|ping|get_url|geturl)$/],
  ['delete', /^(delete|remove|rm|erase|purge|drop|destroy|wipe|unlink|revoke|cancel|truncate)$/],
  ['run', /^(run|exec|execute|shell|bash|sh|cmd|command|terminal|eval|python|script|interpreter|powershell|spawn|deploy|install)$/],
  ['read', /^(search|find|lookup|look|get|list|read|query|retrieve|fetch_docs|show|view|check|describe|summarize|summarise|translate|calculate|weather|time|convert)$/],
];

const DESC_WORDS: [ToolKind, RegExp][] = [
  ['pay', /\b(pays?|payments?|transfers? (money|funds)|wires?|bank transfer|remit)/i],
  ['send', /\b(sends?|forwards?|replies|reply to|e-?mails?|messages? to|notif(y|ies))\b/i],
  ['post', /\b(posts?|publish(es)?|uploads?|submits?|writes? to|creates?)\b/i],
  ['fetch', /\b(fetch(es)?|downloads?|opens? (a |the )?(url|link|page)|visits?|http request|retrieves? (a |the )?(url|web ?page))/i],
  ['delete', /\b(deletes?|removes?|erases?|purges?)\b/i],
  ['run', /\b(runs?|execut(e|es)|shell|commands?)\b/i],
  ['read', /\b(search(es)?|looks? up|lists?|reads?|returns?|gets?)\b/i],
];

/** A lower-case letter or digit before a capital (camel case). Built once: a literal in the
 * function is a new RegExp per call, and V8 compiles a global replace's RegExp again for each. */
const CAMEL = /([a-z0-9])([A-Z])/g;

function nameWords(name: string): string[] {
  return name
    .replace(CAMEL, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** The kind of a tool: configured, else by its name's words (a sink word wins over a read word), else by its description. */
export function toolKind(name: string, description: string, configured: Record<string, ToolKind>): ToolKind {
  const c = configured[name];
  if (c) return c;
  const ws = nameWords(name);
  let read = false;
  for (const [kind, re] of NAME_WORDS) {
    if (!ws.some((w) => re.test(w))) continue;
    if (kind === 'read') read = true;
    else return kind;
  }
  if (read) return 'read';
  for (const [kind, re] of DESC_WORDS) if (re.test(description)) return kind;
  return 'unknown';
}

export function isSink(kind: ToolKind, unknownIsSink: boolean): boolean {
  return kind === 'unknown' ? unknownIsSink : kind !== 'read';
}
