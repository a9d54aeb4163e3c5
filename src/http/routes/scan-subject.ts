/** What a scan request asks to scan: `input` (one text) or `messages` (read by the chat field map), as a ScanSubject. */
import { messageFields, scanParts, undecodableFindings } from '../../scan-service/chat-fields.js';
import type { ScanSubject } from '../../scan-service/service.js';
import type { Target } from '../../scanning/types.js';
import { badRequest } from '../errors.js';

export type RawMessage = Record<string, unknown>;

export function subjectOf(body: { input?: string; messages?: RawMessage[]; source?: Target }, scanSystemTurns: boolean, field = '', undecodable: 'block' | 'flag' = 'block'): ScanSubject {
  const at = (name: string) => (field ? `${field}.${name}` : name);
  if (body.input !== undefined && body.messages !== undefined) throw badRequest(`${at('input')}: give either input or messages, not both.`, at('input'));
  if (body.input !== undefined) return { text: body.input, target: body.source ?? 'prompt' };
  if (body.messages !== undefined) {
    // The one field map the chat proxy uses too (src/scan-service/chat-fields.ts).
    const fields = messageFields(body.messages, { scanSystemTurns });
    const parts = scanParts(fields);
    // A payload that cannot be read as text is reported, as the proxy would treat it (issue 23).
    const findings = undecodableFindings(fields, undecodable === 'block' ? 'high' : 'low');
    // Nothing to scan (only system turns, or empty contents): one empty prompt, an allow.
    return { messages: parts.length ? parts : [{ text: '', target: 'prompt' }], ...(findings.length ? { findings } : {}) };
  }
  throw badRequest(`${at('input')}: is required (or messages).`, at('input'));
}
