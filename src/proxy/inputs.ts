import type { Target } from '../scanning/types.js';
import type { ChatMessage, ChatRequest } from '../providers/types.js';

/**
 * What of a chat request an attacker can influence, grouped by scan target:
 * `prompt` – user turns; `rag` – tool and function results (retrieved data that should hold
 * no instructions) and the tool-call arguments of assistant turns (the model wrote them from
 * such data). System and developer turns are the application's own and are not scanned.
 */
export interface ScanGroup {
  target: Target;
  text: string;
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof p.text === 'string' ? p.text : ''))
    .filter(Boolean)
    .join('\n');
}

/** Texts joined per target with a blank line, so one scan covers a whole conversation. */
export function scanGroups(req: ChatRequest): ScanGroup[] {
  const prompt: string[] = [];
  const rag: string[] = [];
  for (const m of req.messages) {
    if (m.role === 'user') prompt.push(textOf(m.content));
    else if (m.role === 'tool' || m.role === 'function') rag.push(textOf(m.content));
    else if (m.role === 'assistant') {
      for (const tc of m.tool_calls ?? []) rag.push(tc.function?.arguments ?? '');
    }
  }
  const groups: ScanGroup[] = [];
  const p = prompt.filter((t) => t.length > 0).join('\n\n');
  const r = rag.filter((t) => t.length > 0).join('\n\n');
  if (p) groups.push({ target: 'prompt', text: p });
  if (r) groups.push({ target: 'rag', text: r });
  return groups;
}
