import { EVENT_TYPES, OPT_IN_EVENT_TYPES, type EventType } from './types.js';
import { isEventType } from './envelope.js';

/**
 * Client → server messages on /ws/events and the server's replies. Replies carry `action` and
 * never `type`, so a client can never mistake one for an event.
 */
export type ClientRequest =
  | { action: 'subscribe'; event_types: EventType[] | null; since?: number | 'latest' }
  | { action: 'unsubscribe' }
  | { action: 'ping' };

export type ServerReply =
  | { action: 'subscribed'; event_types: EventType[]; since?: number | 'latest'; replayed?: number; complete?: boolean; last_seq?: number }
  | { action: 'unsubscribed'; event_types: EventType[] }
  | { action: 'pong'; timestamp: string }
  | { action: 'error'; message: string };

const ACTIONS = ['subscribe', 'unsubscribe', 'ping'];

/** Parses one text frame; an `{error}` result is answered with an error reply and changes nothing. */
export function parseClientMessage(text: string): ClientRequest | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: 'message is not valid JSON' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { error: 'message must be a JSON object with an "action" field' };
  }
  const msg = value as Record<string, unknown>;
  if (typeof msg.action !== 'string') return { error: `"action" is required: one of ${ACTIONS.join(', ')}` };
  switch (msg.action) {
    case 'subscribe': {
      const types = msg.event_types;
      let since: number | 'latest' | undefined;
      if (msg.since !== undefined) {
        if (msg.since !== 'latest' && !(Number.isSafeInteger(msg.since) && (msg.since as number) >= 0)) {
          return { error: `"since" must be the seq of the last event received (an integer >= 0) or "latest", got ${JSON.stringify(msg.since).slice(0, 100)}` };
        }
        since = msg.since as number | 'latest';
        // A resuming client may keep the default types.
        if (types === undefined) return { action: 'subscribe', event_types: null, since };
      }
      if (!Array.isArray(types)) return { error: '"event_types" must be an array of event types' };
      if (types.length === 0) {
        return { error: '"event_types" must name at least one event type; send {"action":"unsubscribe"} to receive all' };
      }
      const unknown = types.filter((t) => !isEventType(t));
      if (unknown.length > 0) {
        return {
          error: `unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.map((t) => JSON.stringify(t)).join(', ')}; ` +
            `valid: ${EVENT_TYPES.join(', ')}`,
        };
      }
      return { action: 'subscribe', event_types: [...new Set(types as EventType[])], ...(since !== undefined ? { since } : {}) };
    }
    case 'unsubscribe':
      return { action: 'unsubscribe' };
    case 'ping':
      return { action: 'ping' };
    default:
      return { error: `unknown action ${JSON.stringify(msg.action).slice(0, 100)}; expected one of ${ACTIONS.join(', ')}` };
  }
}

/** What a client without a subscription gets: every type but the opt-in ones (scan_job_progress). */
export const DEFAULT_EVENT_TYPES: readonly EventType[] = EVENT_TYPES.filter((t) => !OPT_IN_EVENT_TYPES.has(t));
