import { WardenError } from '../errors.js';
import type { ExtraFinding } from '../ports.js';
import { pathString, undecodableFindings, type FieldText, type scanParts } from '../scan-service/chat-fields.js';

/**
 * What the chat proxy does with a `data:` URL or `file` payload the field map could not read as
 * text (src/scan-service/payload-text.ts): with `block` (security.input.undecodable_content, the
 * default) a 400 `undecodable_content` naming the field, before anything goes upstream; with
 * `flag` (or in monitor mode) an `undecodable_content` finding of low severity on the request's
 * first scan, so the record says what was not scanned. When no other text is scanned, the
 * fields' names are (a scan to carry the finding).
 */
export function undecodablePolicy(fields: FieldText[], block: boolean, groups: ReturnType<typeof scanParts>): ExtraFinding[] {
  const bad = fields.filter((f) => f.undecodable !== undefined);
  if (bad.length === 0) return [];
  const where = bad.map((f) => `${pathString(f.path)} (${f.undecodable})`).join('; ');
  if (block) {
    throw new WardenError(400, 'security_violation', `The request was blocked by a security policy: a payload cannot be read as text, so it cannot be scanned: ${where}. Send text as UTF-8, Latin-1 or UTF-16 (gzip or deflate allowed), or media as a known image or audio format.`, {
      code: 'undecodable_content',
      param: pathString(bad[0]!.path),
    });
  }
  if (groups.length === 0) groups.push({ text: bad.map((f) => pathString(f.path)).join('\n'), target: bad[0]!.target, locate: () => null });
  return undecodableFindings(bad, 'low');
}
