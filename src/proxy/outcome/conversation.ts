import type { ChatMessage, ChatRequest } from '../../providers/types.js';

/**
 * A chat request read by where each text entered the conversation, for the outcome guards:
 * what the application wrote (system and developer turns, tool definitions), what the user
 * wrote (user turns), and what came from outside (tool and function results: e-mails, web
 * pages, retrieved documents), which nobody in the conversation vouches for.
 */
export interface Conversation {
  /** System and developer turns, each as one text. */
  system: string[];
  /** User turns, oldest first. */
  user: string[];
  /** Tool definitions: names, descriptions, parameter schemas as JSON. */
  toolDefs: { name: string; description: string; schema: string }[];
  /** Tool and function results, each with the name of the tool that produced it when known,
   * and its JSON when it is JSON (parsed on first use). */
  toolResults: { tool: string | null; text: string; readonly json: unknown }[];
  /** Earlier assistant turns (content and tool-call arguments). */
  assistant: string[];
}

function textOf(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((p) => (typeof p === 'object' && p !== null ? (typeof p.text === 'string' ? p.text : typeof p.refusal === 'string' ? p.refusal : '') : ''))
    .filter(Boolean)
    .join('\n');
}

function parseJson(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

function toolResult(tool: string | null, text: string): Conversation['toolResults'][number] {
  let json: { value: unknown } | null = null;
  return {
    tool,
    text,
    get json() {
      return (json ??= { value: parseJson(text) }).value;
    },
  };
}

export function readConversation(req: ChatRequest): Conversation {
  const c: Conversation = { system: [], user: [], toolDefs: [], toolResults: [], assistant: [] };
  // Which tool each call id belongs to, so a result is known by the tool that produced it.
  const callTool = new Map<string, string>();
  for (const m of req.messages ?? []) {
    if (typeof m !== 'object' || m === null) continue;
    const text = textOf(m.content);
    switch (m.role) {
      case 'system':
      case 'developer':
        if (text) c.system.push(text);
        break;
      case 'user':
        if (text) c.user.push(text);
        break;
      case 'assistant':
        if (text) c.assistant.push(text);
        for (const tc of m.tool_calls ?? []) {
          if (tc?.id && tc.function?.name) callTool.set(tc.id, tc.function.name);
          if (typeof tc?.function?.arguments === 'string') c.assistant.push(tc.function.arguments);
        }
        break;
      case 'tool':
      case 'function': {
        const tool = m.role === 'function' ? (m.name ?? null) : (callTool.get(String(m.tool_call_id ?? '')) ?? m.name ?? null);
        if (text) c.toolResults.push(toolResult(tool, text));
        break;
      }
    }
  }
  for (const t of req.tools ?? []) {
    const f = (t as { function?: { name?: unknown; description?: unknown; parameters?: unknown } }).function;
    if (!f) continue;
    c.toolDefs.push({ name: String(f.name ?? ''), description: typeof f.description === 'string' ? f.description : '', schema: f.parameters ? JSON.stringify(f.parameters) : '' });
  }
  for (const f of (req.functions as { name?: unknown; description?: unknown; parameters?: unknown }[] | undefined) ?? []) {
    if (f && typeof f === 'object') c.toolDefs.push({ name: String(f.name ?? ''), description: typeof f.description === 'string' ? f.description : '', schema: f.parameters ? JSON.stringify(f.parameters) : '' });
  }
  return c;
}
