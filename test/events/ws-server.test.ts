import { expect } from 'chai';
import { WebSocket } from 'ws';
import { EVENT_TYPES } from '../../src/events/types.js';
import { DEFAULT_EVENT_TYPES } from '../../src/events/ws-protocol.js';
import { makeToken, RecordingClient, sleep, startStream, type StreamFixture } from '../support/events.js';

const threat = { threat_id: 'thr_x', severity: 'high', attack_type: 'prompt_injection', confidence: 0.9, action_taken: 'blocked' };

function emitAllTypes(f: StreamFixture): void {
  f.bus.emit('threat_detected', threat);
  f.bus.emit('provider_health_change', { provider: 'openai', previous_status: 'healthy', status: 'degraded', reason: 'slow', latency_ms: 900 });
  f.bus.emit('cost_threshold_alert', { scope: 'global', scope_id: null, period: 'day', threshold_usd: 10, spent_usd: 11, percent: 110 });
  f.bus.emit('system_status', { status: 'ready', version: '0.1.0', detail: 'test' });
}

describe('events: /ws/events', function () {
  this.timeout(10_000);
  let f: StreamFixture;
  const open: RecordingClient[] = [];
  const track = (c: RecordingClient) => { open.push(c); return c; };

  afterEach(async () => {
    for (const c of open.splice(0)) c.close();
    await f?.close();
  });

  describe('authentication', () => {
    beforeEach(async () => { f = await startStream(); });

    it('accepts a JWT in the Authorization header and streams events', async () => {
      const c = track(await RecordingClient.bearer(f.url));
      f.bus.emit('threat_detected', threat);
      await c.waitFor((m) => m.length === 1);
      const [event] = c.events();
      expect(event).to.have.keys('type', 'timestamp', 'data');
      expect(event!.type).to.equal('threat_detected');
      expect(event!.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(event!.data).to.include({ threat_id: 'thr_x', severity: 'high', instance_id: 'ins_test' });
      expect((event!.data as { event_id: string }).event_id).to.match(/^evt_[0-9a-z]{26}$/);
    });

    it('accepts a JWT in the svc_access_token cookie', async () => {
      const c = track(RecordingClient.connect(f.url, { cookie: `theme=dark; svc_access_token=${await makeToken()}` }));
      await c.opened;
      f.bus.emit('system_status', { status: 'ready' });
      await c.waitFor((m) => m.length === 1);
      expect(c.events()[0]!.type).to.equal('system_status');
    });

    it('accepts a cookie from the same origin and refuses one from another site (4003)', async () => {
      const host = new URL(f.url).host;
      const same = track(RecordingClient.connect(f.url, { cookie: `svc_access_token=${await makeToken()}`, origin: `http://${host}` }));
      await same.opened;
      const cross = track(RecordingClient.connect(f.url, { cookie: `svc_access_token=${await makeToken()}`, origin: 'https://evil.example' }));
      expect(await cross.waitClosed()).to.equal(4003);
      // Behind a reverse proxy the page's origin is the proxy's host, passed as X-Forwarded-Host.
      const proxied = track(RecordingClient.connect(f.url, { cookie: `svc_access_token=${await makeToken()}`, origin: 'https://warden.example.com', 'x-forwarded-host': 'warden.example.com' }));
      await proxied.opened;
      proxied.send({ action: 'ping' });
      expect((await proxied.waitForReplies(1))[0]!.action).to.equal('pong');
    });

    const refused: [string, () => Promise<Record<string, string>>][] = [
      ['no credential', async () => ({})],
      ['a bad signature', async () => ({ authorization: `Bearer ${await makeToken({ secret: 'another-secret-of-at-least-32-bytes!!' })}` })],
      ['a wrong audience', async () => ({ authorization: `Bearer ${await makeToken({ audience: 'someone-else' })}` })],
      ['a wrong issuer', async () => ({ authorization: `Bearer ${await makeToken({ issuer: 'mallory' })}` })],
      ['an expired token', async () => ({ authorization: `Bearer ${await makeToken({ expiresIn: -60 })}` })],
      ['a garbage token', async () => ({ authorization: 'Bearer not.a.jwt' })],
      ['a non-Bearer Authorization header', async () => ({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` })],
      ['an API key alone', async () => ({ 'x-api-key': 'svc_0123456789abcdef0123456789abcdef' })],
      ['a bad cookie', async () => ({ cookie: 'svc_access_token=eyJhbGciOiJub25lIn0.e30.' })],
      ['a service-role token (may not watch events)', async () => ({ authorization: `Bearer ${await makeToken({ role: 'service' })}` })],
    ];
    for (const [name, headers] of refused) {
      it(`closes with 4003 for ${name}, before any event`, async () => {
        const c = track(RecordingClient.connect(f.url, await headers()));
        await c.opened; // the handshake completes so that browsers can see the close code
        f.bus.emit('threat_detected', threat);
        expect(await c.waitClosed()).to.equal(4003);
        expect(c.messages).to.deep.equal([]);
      });
    }

    it('closes with 4003 when the token expires while connected', async () => {
      const c = track(await RecordingClient.bearer(f.url, await makeToken({ expiresIn: 2 })));
      f.bus.emit('system_status', { status: 'ready' });
      await c.waitFor((m) => m.length === 1);
      const started = Date.now();
      expect(await c.waitClosed(4000)).to.equal(4003);
      expect(c.closeReason).to.equal('token expired');
      expect(Date.now() - started).to.be.lessThan(3000);
    });

    it('counts refused handshakes by reason in metrics', async () => {
      const c = track(RecordingClient.connect(f.url, { 'x-api-key': 'svc_abc' }));
      await c.waitClosed();
      const text = await f.registry.metrics();
      expect(text).to.match(/warden_ws_connection_attempts_total\{outcome="api_key"\} 1/);
    });
  });

  describe('subscriptions', () => {
    beforeEach(async () => { f = await startStream(); });

    it('delivers every type, in order, when no subscription was sent', async () => {
      const c = track(await RecordingClient.bearer(f.url));
      emitAllTypes(f);
      await c.waitFor((m) => m.length === 4);
      expect(c.events().map((e) => e.type)).to.deep.equal([...DEFAULT_EVENT_TYPES]);
    });

    it('sends scan_job_progress only to a client that subscribed to it by name', async () => {
      const plain = track(await RecordingClient.bearer(f.url));
      const opted = track(await RecordingClient.bearer(f.url));
      opted.send({ action: 'subscribe', event_types: ['scan_job_progress', 'system_status'] });
      await opted.waitForReplies(1);
      expect(EVENT_TYPES).to.include('scan_job_progress');
      expect(DEFAULT_EVENT_TYPES).to.not.include('scan_job_progress');
      f.bus.emit('scan_job_progress', { job_id: 'job_01m8hwp9gkbpcfpmtvzcjbmash', state: 'running', total: 10, scanned: 5, flagged: 0, blocked: 0, errors: 0 });
      emitAllTypes(f);
      await opted.waitFor((m) => m.filter((x) => 'type' in x).length === 2);
      await plain.waitFor((m) => m.length === 4);
      expect(opted.events().map((e) => e.type)).to.deep.equal(['scan_job_progress', 'system_status']);
      expect(plain.events().map((e) => e.type)).to.deep.equal([...DEFAULT_EVENT_TYPES]);
    });

    it('subscribe filters, a second subscribe replaces the filter, unsubscribe returns to all', async () => {
      const c = track(await RecordingClient.bearer(f.url));
      c.send({ action: 'subscribe', event_types: ['threat_detected'] });
      const [ack] = await c.waitForReplies(1);
      expect(ack).to.deep.equal({ action: 'subscribed', event_types: ['threat_detected'] });
      expect(ack).not.to.have.property('type');
      emitAllTypes(f);
      c.send({ action: 'subscribe', event_types: ['system_status', 'cost_threshold_alert', 'system_status'] });
      await c.waitForReplies(2);
      expect(c.replies()[1]).to.deep.equal({ action: 'subscribed', event_types: ['system_status', 'cost_threshold_alert'] });
      emitAllTypes(f);
      c.send({ action: 'unsubscribe' });
      await c.waitForReplies(3);
      expect(c.replies()[2]).to.deep.equal({ action: 'unsubscribed', event_types: [...DEFAULT_EVENT_TYPES] });
      emitAllTypes(f);
      await c.waitFor((m) => m.filter((x) => 'type' in x).length === 1 + 2 + 4);
      expect(c.events().map((e) => e.type)).to.deep.equal([
        'threat_detected',
        'cost_threshold_alert', 'system_status',
        ...DEFAULT_EVENT_TYPES,
      ]);
    });

    it('filters per client: each client gets what it asked for', async () => {
      const a = track(await RecordingClient.bearer(f.url));
      const b = track(await RecordingClient.bearer(f.url));
      a.send({ action: 'subscribe', event_types: ['provider_health_change'] });
      await a.waitForReplies(1);
      emitAllTypes(f);
      await b.waitFor((m) => m.length === 4);
      await a.waitFor((m) => m.length === 2);
      expect(a.events().map((e) => e.type)).to.deep.equal(['provider_health_change']);
    });

    it('answers ping with pong', async () => {
      const c = track(await RecordingClient.bearer(f.url));
      c.send({ action: 'ping' });
      const [pong] = await c.waitForReplies(1);
      expect(pong!.action).to.equal('pong');
      expect(pong).not.to.have.property('type');
    });
  });

  describe('bad client messages', () => {
    beforeEach(async () => { f = await startStream(); });

    const bad: [string, unknown, RegExp][] = [
      ['not JSON', '{"action": subscribe', /not valid JSON/],
      ['a JSON array', '[1,2]', /JSON object/],
      ['a missing action', { event_types: ['threat_detected'] }, /"action" is required/],
      ['an unknown action', { action: 'replay' }, /unknown action "replay"/],
      ['an unknown event type', { action: 'subscribe', event_types: ['threat_detected', 'threat_detectedd'] }, /unknown event type "threat_detectedd".*valid: threat_detected/],
      ['event_types not an array', { action: 'subscribe', event_types: 'threat_detected' }, /must be an array/],
      ['an empty event_types', { action: 'subscribe', event_types: [] }, /at least one event type/],
    ];
    for (const [name, message, pattern] of bad) {
      it(`answers ${name} with an error reply and keeps the connection and the filter`, async () => {
        const c = track(await RecordingClient.bearer(f.url));
        c.send({ action: 'subscribe', event_types: ['system_status'] });
        await c.waitForReplies(1);
        c.send(message);
        const replies = await c.waitForReplies(2);
        expect(replies[1]!.action).to.equal('error');
        expect(replies[1]!.message).to.match(pattern);
        expect(replies[1]).not.to.have.property('type');
        // Still open, filter unchanged.
        emitAllTypes(f);
        c.send({ action: 'ping' });
        await c.waitForReplies(3);
        await c.waitFor((m) => m.some((x) => x.type === 'system_status'));
        expect(c.events().map((e) => e.type)).to.deep.equal(['system_status']);
        expect(c.socket.readyState).to.equal(WebSocket.OPEN);
      });
    }

    it('answers a binary frame with an error reply', async () => {
      const c = track(await RecordingClient.bearer(f.url));
      c.socket.send(Buffer.from('{"action":"ping"}'), { binary: true });
      const [reply] = await c.waitForReplies(1);
      expect(reply).to.include({ action: 'error' });
      expect(reply!.message).to.match(/not binary/);
    });

    it('closes with 1009 on a message over 64 KiB', async () => {
      const c = track(await RecordingClient.bearer(f.url));
      c.send({ action: 'subscribe', event_types: ['system_status'], pad: 'x'.repeat(64 * 1024) });
      expect(await c.waitClosed()).to.equal(1009);
    });

    it('accepts a message just under 64 KiB', async () => {
      const c = track(await RecordingClient.bearer(f.url));
      const base = JSON.stringify({ action: 'ping', pad: '' });
      c.send(JSON.stringify({ action: 'ping', pad: 'x'.repeat(64 * 1024 - base.length) }));
      const [reply] = await c.waitForReplies(1);
      expect(reply!.action).to.equal('pong');
    });
  });

  describe('slow clients, limits, heartbeat, shutdown', () => {
    it('closes a client that does not read with 1013 and keeps delivering to the others', async () => {
      // 2 MB of slack (20 events): the fast clients read in this same process, and on a busy CI
      // machine a quarter-megabyte bound dropped a fast client that was only briefly starved;
      // the paused one is sent 20 MB and still goes over it.
      f = await startStream({ maxBufferedBytes: 2 * 1024 * 1024 });
      const fast = [track(await RecordingClient.bearer(f.url)), track(await RecordingClient.bearer(f.url))];
      const slow = track(await RecordingClient.bearer(f.url));
      // Stop reading at the TCP level: the server's send buffer for this client fills up.
      (slow.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
      const N = 200;
      const pad = 'p'.repeat(100 * 1024);
      const started = Date.now();
      for (let i = 0; i < N; i++) {
        f.bus.emit('system_status', { status: 'ready', detail: pad, seq: i });
        if (i % 20 === 19) await sleep(5); // let sockets drain like real traffic would
      }
      await Promise.all(fast.map((c) => c.waitFor((m) => m.length === N, 8000, `${N} events`)));
      const fastMs = Date.now() - started;
      for (const c of fast) expect(c.events().map((e) => (e.data as { seq: number }).seq)).to.deep.equal([...Array(N).keys()]);
      expect(f.stream.connectionCount).to.be.at.most(3);
      const metrics = await f.registry.metrics();
      expect(metrics).to.match(/warden_ws_slow_clients_dropped_total 1/);
      (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
      expect(await slow.waitClosed(6000)).to.equal(1013);
      expect(slow.events().length).to.be.lessThan(N);
      expect(fastMs).to.be.lessThan(8000);
    });

    it('closes connections over ws.max_connections with 1013', async () => {
      f = await startStream({ maxConnections: 2 });
      track(await RecordingClient.bearer(f.url));
      track(await RecordingClient.bearer(f.url));
      const third = track(await RecordingClient.bearer(f.url));
      expect(await third.waitClosed()).to.equal(1013);
      expect(f.stream.health().connections).to.equal(2);
    });

    it('terminates a client that stops answering pings', async () => {
      f = await startStream({ heartbeatMs: 100 });
      const live = track(await RecordingClient.bearer(f.url));
      const dead = track(new RecordingClient(new WebSocket(f.url, { headers: { authorization: `Bearer ${await makeToken()}` }, autoPong: false })));
      await dead.opened;
      const code = await dead.waitClosed(2000);
      expect(code).to.equal(1006); // terminated: no close frame
      await sleep(250);
      expect(live.socket.readyState).to.equal(WebSocket.OPEN);
      expect(f.stream.connectionCount).to.equal(1);
    });

    it('reports /ws/health', async () => {
      f = await startStream({ instanceId: 'ins_health' });
      track(await RecordingClient.bearer(f.url));
      expect(f.stream.health()).to.deep.equal({ status: 'ok', instance_id: 'ins_health', connections: 1, transport: 'memory', transport_connected: true });
    });

    it('refuses upgrades on other paths with 404', async () => {
      f = await startStream();
      const c = new WebSocket(f.url.replace('/ws/events', '/ws/other'), { headers: { authorization: `Bearer ${await makeToken()}` } });
      const status = await new Promise<number>((res) => {
        c.on('unexpected-response', (_req, resp) => res(resp.statusCode ?? 0));
        c.on('error', () => res(-1));
      });
      expect(status).to.equal(404);
    });

    it('closes every client with 1001 on shutdown and refuses new ones', async () => {
      f = await startStream();
      const a = track(await RecordingClient.bearer(f.url));
      const b = track(await RecordingClient.bearer(f.url));
      await f.stream.close();
      expect(await a.waitClosed()).to.equal(1001);
      expect(await b.waitClosed()).to.equal(1001);
      expect(f.stream.health().status).to.equal('shutting_down');
    });
  });
});
