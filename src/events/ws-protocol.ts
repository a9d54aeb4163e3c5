import { EVENT_TYPES, type EventType } from './types.js';
import { isEventType } from './envelope.js';

/**
 * Client → server messages on /ws/events and the server's replies. Replies carry `action` and
 * never `type`, so a client can never mistake one for an event.
 */
export type ClientRequest =
  | { action: 'subscribe'; event_types: EventType[] }
  | { action: 'unsubscribe' }
  | { action: 'ping' };

export type ServerReply =
  | { action: 'subscribed'; event_types: EventType[] }
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
      return { action: 'subscribe', event_types: [...new Set(types as EventType[])] };
    }
    case 'unsubscribe':
      return { action: 'unsubscribe' };
    case 'ping':
      return { action: 'ping' };
    default:
      return { error: `unknown action ${JSON.stringify(msg.action).slice(0, 100)}; expected one of ${ACTIONS.join(', ')}` };
  }
}
