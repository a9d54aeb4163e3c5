import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Counter, Gauge, type Registry } from 'prom-client';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { SESSION_COOKIE, bearerToken, readCookie, sameOrigin } from '../auth/credentials.js';
import { log as rootLog, type Logger } from '../log.js';
import type { EventLog, LoggedEvent } from './event-log.js';
import { DEFAULT_EVENT_TYPES, parseClientMessage, type ServerReply } from './ws-protocol.js';
import { OPT_IN_EVENT_TYPES, type EventEnvelope, type EventListener, type EventType, type TransportStatus } from './types.js';

export const WS_EVENTS_PATH = '/ws/events';

/** Close codes a client may see. 4003 mirrors HTTP 403 in the 4000-4999 application range. */
export const CLOSE = {
  GOING_AWAY: 1001,
  TOO_BIG: 1009,
  TRY_AGAIN_LATER: 1013,
  UNAUTHORIZED: 4003,
} as const;

export interface VerifiedWsToken {
  subject: string;
  role: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** What the stream needs from the event bus. */
export interface EventSource {
  readonly instanceId: string;
  subscribe(listener: EventListener): () => void;
  status(): TransportStatus;
}

export interface WsHealth {
  status: 'ok' | 'degraded' | 'shutting_down';
  instance_id: string;
  connections: number;
  transport: 'memory' | 'kafka';
  transport_connected: boolean;
}

export interface EventStreamOptions {
  bus: EventSource;
  /** Throws when the token is not valid (signature, iss, aud, exp, iat, algorithm). */
  verifyJwt(token: string): Promise<VerifiedWsToken>;
  /** Roles allowed to watch events (decisions.md: admin and analyst). */
  allowedRoles?: readonly string[];
  /** Origins (scheme://host[:port]) a cookie-authenticated browser may connect from besides the service's own host. */
  allowedOrigins?: readonly string[];
  maxConnections?: number;
  maxBufferedBytes?: number;
  heartbeatMs?: number;
  maxMessageBytes?: number;
  /** The resumable stream (`since`); without it a subscription with `since` is answered with an error. */
  log?: EventLog;
  registry?: Registry;
  logger?: Logger;
}

interface Client {
  socket: WebSocket;
  subject: string;
  /** null: no subscription sent, so every type but the opt-in ones. */
  filter: Set<EventType> | null;
  /** Set once the client subscribed with `since`: it gets the event log's stream, each event with its seq, from after `last`. */
  resume: { last: number } | null;
  alive: boolean;
  closing: boolean;
  expiryTimer: NodeJS.Timeout | null;
}

interface WsMetrics {
  connections: Gauge;
  attempts: Counter<'outcome'>;
  slowDropped: Counter;
  sent: Counter<'type'>;
  clientMessages: Counter<'action'>;
}

/** Longest setTimeout Node accepts; longer token lifetimes re-arm the timer. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The /ws/events stream. Attaches to the REST API's http.Server (`upgrade`), authenticates the
 * JWT before completing the handshake, and closes with 4003 right after it when the token is
 * missing or bad, so browsers, which never see a refused handshake's status, see the code.
 */
export class EventStreamServer {
  private readonly wss: WebSocketServer;
  private readonly clients = new Set<Client>();
  private readonly log: Logger;
  private readonly metrics: WsMetrics | null;
  private readonly opts: Required<Omit<EventStreamOptions, 'registry' | 'logger' | 'allowedOrigins' | 'log'>> & Pick<EventStreamOptions, 'allowedOrigins' | 'log'>;
  private unsubscribeBus: (() => void) | null = null;
  private unsubscribeLog: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private shuttingDown = false;
  private readonly servers = new Set<Server>();
  private readonly onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => this.handleUpgrade(req, socket, head);

  constructor(options: EventStreamOptions) {
    this.opts = {
      allowedRoles: ['admin', 'analyst'],
      maxConnections: 10_000,
      maxBufferedBytes: 1_048_576,
      heartbeatMs: 30_000,
      maxMessageBytes: 65_536,
      ...options,
    };
    this.log = (options.logger ?? rootLog).child({ component: 'ws' });
    // Inbound frames over the limit make ws close the connection with 1009 itself.
    this.wss = new WebSocketServer({ noServer: true, maxPayload: this.opts.maxMessageBytes, perMessageDeflate: false, clientTracking: false });
    this.metrics = options.registry ? createWsMetrics(options.registry, () => this.clients.size) : null;
    this.unsubscribeBus = this.opts.bus.subscribe((event) => this.broadcast(event));
    this.unsubscribeLog = this.opts.log?.subscribe((logged) => this.broadcastLogged(logged)) ?? null;
    this.heartbeat = setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Handles upgrades to /ws/events on this server; other upgrade paths get a 404. */
  attach(server: Server): void {
    this.servers.add(server);
    server.on('upgrade', this.onUpgrade);
  }

  health(): WsHealth {
    const transport = this.opts.bus.status();
    return {
      status: this.shuttingDown ? 'shutting_down' : transport.connected ? 'ok' : 'degraded',
      instance_id: this.opts.bus.instanceId,
      connections: this.clients.size,
      transport: transport.transport,
      transport_connected: transport.connected,
    };
  }

  /** Same as health(): the body of GET /ws/health. */
  wsHealth(): WsHealth {
    return this.health();
  }

  /** Applies reloaded limits; existing connections over a lowered limit stay. */
  updateLimits(limits: { maxConnections?: number; maxBufferedBytes?: number }): void {
    if (limits.maxConnections) this.opts.maxConnections = limits.maxConnections;
    if (limits.maxBufferedBytes) this.opts.maxBufferedBytes = limits.maxBufferedBytes;
  }

  get connectionCount(): number {
    return this.clients.size;
  }

  /** Graceful shutdown: refuse new connections, close every client with 1001, wait briefly. */
  async close(timeoutMs = 2_000): Promise<void> {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.unsubscribeBus?.();
    this.unsubscribeLog?.();
    for (const server of this.servers) server.off('upgrade', this.onUpgrade);
    const closed = [...this.clients].map((c) => new Promise<void>((res) => {
      if (c.socket.readyState === WebSocket.CLOSED) return res();
      c.socket.once('close', () => res());
      this.closeClient(c, CLOSE.GOING_AWAY, 'server shutting down');
    }));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(closed), new Promise<void>((res) => { timer = setTimeout(res, timeoutMs); })]);
    clearTimeout(timer);
    for (const c of this.clients) c.socket.terminate();
    this.wss.close();
  }

  private handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? '').split('?')[0];
    if (path !== WS_EVENTS_PATH) {
      // Leave the upgrade to another handler if one exists; otherwise nobody answers it.
      if (this.countOtherUpgradeHandlers() === 0) rejectHandshake(socket, 404, 'Not Found');
      return;
    }
    if (this.shuttingDown) {
      rejectHandshake(socket, 503, 'Service Unavailable');
      return;
    }
    socket.on('error', () => socket.destroy());
    void this.authenticate(req)
      .then((outcome) => {
        this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, outcome));
      })
      .catch((err) => {
        this.log.error({ err }, 'websocket handshake failed');
        socket.destroy();
      });
  }

  private countOtherUpgradeHandlers(): number {
    let n = 0;
    for (const server of this.servers) n += server.listenerCount('upgrade') - 1;
    return n;
  }

  private async authenticate(req: IncomingMessage): Promise<VerifiedWsToken | { reject: string; reason: string }> {
    const authorization = req.headers.authorization;
    let token: string | undefined;
    let viaCookie = false;
    if (authorization) {
      const bearer = bearerToken(authorization);
      if (bearer === null) return { reject: 'malformed_authorization', reason: 'Authorization must be "Bearer <JWT>"' };
      token = bearer;
    } else {
      token = readCookie(req.headers.cookie, SESSION_COOKIE);
      viaCookie = token !== undefined;
    }
    if (!token) {
      // An API key is not a credential for this endpoint (interface.md §5).
      const reason = req.headers['x-api-key'] ? 'API keys are not accepted here; use a JWT' : 'a JWT is required';
      return { reject: req.headers['x-api-key'] ? 'api_key' : 'missing', reason };
    }
    if (viaCookie && !this.originAllowed(req)) {
      // A cookie rides along on cross-site handshakes: refuse other origins (cross-site WebSocket hijacking).
      return { reject: 'cross_origin', reason: 'cookie authentication requires a same-origin connection' };
    }
    let verified: VerifiedWsToken;
    try {
      verified = await this.opts.verifyJwt(token);
    } catch (err) {
      const reason = (err as { reason?: string }).reason ?? 'invalid';
      return { reject: `jwt_${String(reason).split(' ')[0]}`, reason: reason === 'expired' ? 'token expired' : 'invalid token' };
    }
    if (!this.opts.allowedRoles.includes(verified.role)) {
      return { reject: 'role', reason: `role ${verified.role} may not watch events` };
    }
    if (verified.expiresAt <= Date.now()) return { reject: 'jwt_expired', reason: 'token expired' };
    return verified;
  }

  private originAllowed(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (!origin) return true; // Not a browser: no ambient cookie to abuse.
    // Browsers cannot set X-Forwarded-Host, so behind a proxy either name is ours.
    const forwarded = String(req.headers['x-forwarded-host'] ?? '').split(',')[0]!.trim();
    return sameOrigin(origin, { hosts: [req.headers.host, forwarded], allowed: this.opts.allowedOrigins });
  }

  private onConnection(socket: WebSocket, outcome: VerifiedWsToken | { reject: string; reason: string }): void {
    if ('reject' in outcome) {
      this.metrics?.attempts.inc({ outcome: outcome.reject });
      socket.close(CLOSE.UNAUTHORIZED, outcome.reason);
      setTimeout(() => socket.terminate(), 2_000).unref();
      return;
    }
    if (this.shuttingDown) {
      socket.close(CLOSE.GOING_AWAY, 'server shutting down');
      return;
    }
    if (this.clients.size >= this.opts.maxConnections) {
      this.metrics?.attempts.inc({ outcome: 'over_limit' });
      socket.close(CLOSE.TRY_AGAIN_LATER, 'too many connections');
      setTimeout(() => socket.terminate(), 2_000).unref();
      return;
    }
    this.metrics?.attempts.inc({ outcome: 'accepted' });
    const client: Client = { socket, subject: outcome.subject, filter: null, resume: null, alive: true, closing: false, expiryTimer: null };
    this.clients.add(client);
    this.armExpiry(client, outcome.expiresAt);
    socket.on('pong', () => { client.alive = true; });
    socket.on('message', (data, isBinary) => this.onMessage(client, data, isBinary));
    socket.on('error', (err) => this.log.debug({ err: err.message, subject: client.subject }, 'websocket error'));
    socket.on('close', () => {
      this.clients.delete(client);
      if (client.expiryTimer) clearTimeout(client.expiryTimer);
    });
  }

  private armExpiry(client: Client, expiresAt: number): void {
    const wait = expiresAt - Date.now();
    client.expiryTimer = setTimeout(() => {
      if (expiresAt - Date.now() > 0) return this.armExpiry(client, expiresAt);
      this.closeClient(client, CLOSE.UNAUTHORIZED, 'token expired');
    }, Math.max(0, Math.min(wait, MAX_TIMER_MS)));
    client.expiryTimer.unref();
  }

  private onMessage(client: Client, data: RawData, isBinary: boolean): void {
    client.alive = true;
    if (isBinary) return this.reply(client, { action: 'error', message: 'send JSON text messages, not binary' }, 'invalid');
    const request = parseClientMessage(rawToString(data));
    if ('error' in request) return this.reply(client, { action: 'error', message: request.error }, 'invalid');
    switch (request.action) {
      case 'subscribe': {
        client.filter = request.event_types ? new Set(request.event_types) : null;
        const types = request.event_types ?? [...DEFAULT_EVENT_TYPES];
        if (request.since === undefined) {
          client.resume = null;
          return this.reply(client, { action: 'subscribed', event_types: types }, 'subscribe');
        }
        return this.resume(client, types, request.since);
      }
      case 'unsubscribe':
        client.filter = null;
        return this.reply(client, { action: 'unsubscribed', event_types: [...DEFAULT_EVENT_TYPES] }, 'unsubscribe');
      case 'ping':
        return this.reply(client, { action: 'pong', timestamp: new Date().toISOString() }, 'ping');
    }
  }

  /**
   * `since`: replays what the log kept after that seq (of the subscribed types), then switches the
   * client to the log's live stream. Both happen in this one synchronous turn, so no event falls
   * between them and none comes twice. `complete: false` says some events were past the retention.
   */
  private resume(client: Client, types: EventType[], since: number | 'latest'): void {
    const log = this.opts.log;
    if (!log) return this.reply(client, { action: 'error', message: 'this stream keeps no events to resume from' }, 'invalid');
    const from = since === 'latest' ? log.lastSeq : since;
    const { events, complete } = log.since(from);
    const wanted = events.filter((e) => this.wants(client, e.event.type));
    client.resume = { last: Math.max(from, log.lastSeq) };
    this.reply(client, { action: 'subscribed', event_types: types, since, replayed: wanted.length, complete, last_seq: log.lastSeq }, 'subscribe');
    for (const e of wanted) this.send(client, loggedText(e));
    if (wanted.length) this.metrics?.sent.inc({ type: 'replay' }, wanted.length);
  }

  private wants(client: Client, type: EventType): boolean {
    return client.filter ? client.filter.has(type) : !OPT_IN_EVENT_TYPES.has(type);
  }

  private broadcastLogged(logged: LoggedEvent): void {
    let text: string | null = null;
    for (const client of this.clients) {
      if (!client.resume || logged.seq <= client.resume.last) continue;
      client.resume.last = logged.seq;
      if (!this.wants(client, logged.event.type)) continue;
      text ??= loggedText(logged);
      if (this.send(client, text)) this.metrics?.sent.inc({ type: logged.event.type });
    }
  }

  private reply(client: Client, reply: ServerReply, action: string): void {
    this.metrics?.clientMessages.inc({ action });
    this.send(client, JSON.stringify(reply));
  }

  private broadcast(event: EventEnvelope): void {
    if (this.clients.size === 0) return;
    // Serialised and encoded once, whatever the number of clients; sent as a text frame.
    const text = Buffer.from(JSON.stringify({ type: event.type, timestamp: event.timestamp, data: event.data }));
    let sent = 0;
    for (const client of this.clients) {
      if (client.resume || !this.wants(client, event.type)) continue;
      if (this.send(client, text)) sent++;
    }
    if (sent) this.metrics?.sent.inc({ type: event.type }, sent);
  }

  /** Sends without waiting; a client whose backlog passes the bound is closed, never waited for. */
  private send(client: Client, text: string | Buffer): boolean {
    if (client.closing || client.socket.readyState !== WebSocket.OPEN) return false;
    if (client.socket.bufferedAmount > this.opts.maxBufferedBytes) {
      this.metrics?.slowDropped.inc();
      this.log.warn({ subject: client.subject, buffered: client.socket.bufferedAmount }, 'closing a websocket client that does not keep up');
      this.closeClient(client, CLOSE.TRY_AGAIN_LATER, 'client too slow');
      return false;
    }
    client.socket.send(text, { binary: false });
    return true;
  }

  private closeClient(client: Client, code: number, reason: string): void {
    if (client.closing) return;
    client.closing = true;
    if (client.expiryTimer) clearTimeout(client.expiryTimer);
    client.socket.close(code, reason);
    // A client that never reads never answers the close frame either.
    setTimeout(() => client.socket.terminate(), 5_000).unref();
  }

  private beat(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        this.log.debug({ subject: client.subject }, 'terminating a websocket client that missed a heartbeat');
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      if (client.socket.readyState === WebSocket.OPEN) client.socket.ping();
    }
  }
}

function createWsMetrics(registry: Registry, connections: () => number): WsMetrics {
  const registers = [registry];
  return {
    connections: new Gauge({
      name: 'warden_ws_connections',
      help: 'Open /ws/events connections',
      registers,
      collect() { this.set(connections()); },
    }),
    attempts: new Counter({
      name: 'warden_ws_connection_attempts_total',
      help: 'WebSocket handshakes by outcome (accepted, over_limit, or why authentication failed)',
      labelNames: ['outcome'],
      registers,
    }),
    slowDropped: new Counter({
      name: 'warden_ws_slow_clients_dropped_total',
      help: 'Clients closed with 1013 because their unsent backlog passed ws.max_buffered_bytes',
      registers,
    }),
    sent: new Counter({
      name: 'warden_ws_events_sent_total',
      help: 'Event messages sent to WebSocket clients, by type',
      labelNames: ['type'],
      registers,
    }),
    clientMessages: new Counter({
      name: 'warden_ws_client_messages_total',
      help: 'Messages received from WebSocket clients, by action (invalid: answered with an error)',
      labelNames: ['action'],
      registers,
    }),
  };
}

function rejectHandshake(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** An event of the resumable stream: the envelope, with its seq in data. */
function loggedText(e: LoggedEvent): string {
  return JSON.stringify({ type: e.event.type, timestamp: e.event.timestamp, data: { ...e.event.data, seq: e.seq } });
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}
