import type { IncomingMessage, Server } from 'node:http';
import type { Socket } from 'node:net';

/**
 * A cap on connections that have not authenticated, per client address (the socket's, not
 * X-Forwarded-For). A connection is pending while a request on it is still arriving (headers,
 * or a body: a login form, or a body sent to a public route) and no request on it has presented
 * a credential the auth stage accepted. A brand-new socket is pending until its first request's
 * headers and body are in. Past `cap()` pending connections from one address, a new connection
 * is closed at once. Slow senders are cut by server.headers_timeout_ms / request_timeout_ms
 * (Node's headersTimeout / requestTimeout); this bounds how many of them one address holds.
 *
 * An unauthenticated /v1 request that sends a body is refused (401) before the body is read and
 * its connection closed (http/app.ts), so it does not linger here either.
 */
const STATE = Symbol('warden.connection');

interface ConnectionState {
  pending: boolean;
  authenticated: boolean;
  /** Counts this connection as pending (again) / no longer pending. */
  hold(): void;
  release(): void;
}

type Tracked = Socket & { [STATE]?: ConnectionState };

export interface ConnectionGuard {
  /** Pending connections per address right now. */
  pending(): Map<string, number>;
  /** Connections closed because their address was over the cap. */
  refused: number;
}

export function guardPendingConnections(server: Server, cap: () => number): ConnectionGuard {
  const counts = new Map<string, number>();
  const guard: ConnectionGuard = { pending: () => new Map(counts), refused: 0 };
  server.on('connection', (socket: Tracked) => {
    const address = socket.remoteAddress ?? 'unknown';
    const limit = cap();
    if (limit > 0 && (counts.get(address) ?? 0) >= limit) {
      guard.refused++;
      socket.destroy();
      return;
    }
    const state: ConnectionState = {
      pending: false,
      authenticated: false,
      hold() {
        if (this.pending) return;
        this.pending = true;
        counts.set(address, (counts.get(address) ?? 0) + 1);
      },
      release() {
        if (!this.pending) return;
        this.pending = false;
        const n = (counts.get(address) ?? 1) - 1;
        if (n <= 0) counts.delete(address);
        else counts.set(address, n);
      },
    };
    state.hold();
    socket[STATE] = state;
    socket.once('close', () => state.release());
  });
  server.on('request', (req: IncomingMessage) => {
    const state = (req.socket as Tracked)[STATE];
    if (state === undefined || state.authenticated) return;
    // Pending until this request is all in (a later request on an idle connection, too).
    state.hold();
    if (req.complete) state.release();
    else {
      req.once('end', () => state.release());
      req.once('close', () => state.release());
    }
  });
  return guard;
}

/** Called by the auth stage once a credential on this connection was accepted. */
export function markAuthenticated(socket: Socket): void {
  const state = (socket as Tracked)[STATE];
  if (state === undefined || state.authenticated) return;
  state.authenticated = true;
  state.release();
}
