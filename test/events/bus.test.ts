import { expect } from 'chai';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { EventBus } from '../../src/events/bus.js';
import { naturalKey, parseEnvelope } from '../../src/events/envelope.js';
import type { EventEnvelope, EventListener, EventTransport, TransportStatus } from '../../src/events/types.js';
import { log } from '../../src/log.js';

/** A transport that records what it was given and lets the test inject remote events. */
class FakeTransport implements EventTransport {
  readonly name = 'kafka' as const;
  published: { event: EventEnvelope; key: string }[] = [];
  remote: EventListener | null = null;
  throwOnPublish = false;
  async start() {}
  publish(event: EventEnvelope, key: string) {
    if (this.throwOnPublish) throw new Error('boom');
    this.published.push({ event, key });
  }
  onRemoteEvent(l: EventListener) { this.remote = l; }
  status(): TransportStatus { return { transport: 'kafka', connected: false, buffered: 3, dropped: 1 }; }
  async stop() {}
}

function remoteEvent(instance: string, id: string): EventEnvelope {
  return { type: 'system_status', timestamp: '2026-01-01T00:00:00.000Z', data: { status: 'ready', event_id: id, instance_id: instance } };
}

describe('events: EventBus', () => {
  it('stamps the envelope: exactly type, timestamp (ISO UTC ms Z) and data with event_id and instance_id', () => {
    const bus = new EventBus({ instanceId: 'ins_a', logger: log });
    const event = bus.emit('threat_detected', { threat_id: 'thr_1', severity: 'high', event_id: 'forged', instance_id: 'forged' });
    expect(Object.keys(event)).to.deep.equal(['type', 'timestamp', 'data']);
    expect(event.timestamp).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(event.timestamp) - Date.now())).to.be.lessThan(1000);
    expect(event.data.event_id).to.match(/^evt_[0-9a-z]{26}$/);
    expect(event.data.instance_id).to.equal('ins_a');
    expect(event.data).to.include({ threat_id: 'thr_1', severity: 'high' });
  });

  it('delivers to every local listener once, at once, and hands the event to the transport with its natural key', () => {
    const transport = new FakeTransport();
    const bus = new EventBus({ instanceId: 'ins_a', transport, logger: log });
    const a: EventEnvelope[] = [];
    const b: EventEnvelope[] = [];
    bus.subscribe((e) => a.push(e));
    const stopB = bus.subscribe((e) => b.push(e));
    const e1 = bus.emit('threat_detected', { threat_id: 'thr_1' });
    stopB();
    bus.emit('provider_health_change', { provider: 'openai' });
    expect(a.map((e) => e.type)).to.deep.equal(['threat_detected', 'provider_health_change']);
    expect(b).to.deep.equal([e1]);
    expect(transport.published.map((p) => p.key)).to.deep.equal(['thr_1', 'openai']);
    bus.emit('cost_threshold_alert', { scope: 'key', scope_id: 'key_1' }, 'explicit');
    expect(transport.published[2]!.key).to.equal('explicit');
  });

  it('delivers remote events once, and drops its own echo and redeliveries', () => {
    const transport = new FakeTransport();
    const registry = new Registry();
    const bus = new EventBus({ instanceId: 'ins_a', transport, registry, logger: log });
    const got: string[] = [];
    bus.subscribe((e) => got.push(e.data.event_id));
    transport.remote!(remoteEvent('ins_b', 'evt_1'));
    transport.remote!(remoteEvent('ins_b', 'evt_1'));
    transport.remote!(remoteEvent('ins_a', 'evt_2'));
    transport.remote!(remoteEvent('ins_c', 'evt_3'));
    expect(got).to.deep.equal(['evt_1', 'evt_3']);
  });

  it('says so when another instance uses the same instance id', () => {
    const transport = new FakeTransport();
    const lines: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => { lines.push(line); } });
    const bus = new EventBus({ instanceId: 'ins_a', transport, logger });
    const own = bus.emit('system_status', { status: 'ready' });
    transport.remote!(own); // our own echo: silently dropped
    expect(lines).to.have.length(0);
    transport.remote!(remoteEvent('ins_a', 'evt_not_ours'));
    expect(lines).to.have.length(1);
    expect(lines[0]).to.match(/another instance uses this server.instance_id/);
  });

  it('remembers a full dedupe window of remote ids', () => {
    const transport = new FakeTransport();
    const bus = new EventBus({ instanceId: 'ins_a', transport, logger: log, dedupeWindow: 100 });
    let n = 0;
    bus.subscribe(() => n++);
    for (let i = 0; i < 100; i++) transport.remote!(remoteEvent('ins_b', `evt_${i}`));
    for (let i = 0; i < 100; i++) transport.remote!(remoteEvent('ins_b', `evt_${i}`));
    expect(n).to.equal(100);
  });

  it('keeps delivering when a listener throws or the transport throws', () => {
    const transport = new FakeTransport();
    transport.throwOnPublish = true;
    const bus = new EventBus({ instanceId: 'ins_a', transport, logger: log.child({}, { level: 'silent' }) });
    const got: string[] = [];
    bus.subscribe(() => { throw new Error('listener bug'); });
    bus.subscribe((e) => got.push(e.type));
    expect(() => bus.emit('system_status', { status: 'ready' })).not.to.throw();
    expect(got).to.deep.equal(['system_status']);
  });

  it('refuses an unknown event type', () => {
    const bus = new EventBus({ instanceId: 'ins_a', logger: log });
    expect(() => bus.emit('threat' as never, {})).to.throw(TypeError, /unknown event type: threat/);
  });

  it('counts published and delivered events by type and exposes transport state', async () => {
    const transport = new FakeTransport();
    const registry = new Registry();
    const bus = new EventBus({ instanceId: 'ins_a', transport, registry, logger: log });
    bus.emit('threat_detected', { threat_id: 'thr_1' });
    bus.emit('threat_detected', { threat_id: 'thr_2' });
    transport.remote!(remoteEvent('ins_b', 'evt_9'));
    const text = await registry.metrics();
    expect(text).to.match(/warden_events_published_total\{type="threat_detected"\} 2/);
    expect(text).to.match(/warden_events_delivered_total\{type="threat_detected",origin="local"\} 2/);
    expect(text).to.match(/warden_events_delivered_total\{type="system_status",origin="remote"\} 1/);
    expect(text).to.match(/warden_events_transport_connected\{transport="kafka"\} 0/);
    expect(text).to.match(/warden_events_buffered 3/);
    expect(text).to.match(/warden_events_buffer_dropped 1/);
  });

  it('the memory transport is the default and always connected', () => {
    const bus = new EventBus({ instanceId: 'ins_a', logger: log });
    expect(bus.status()).to.deep.equal({ transport: 'memory', connected: true, buffered: 0, dropped: 0 });
  });
});

describe('events: envelope helpers', () => {
  it('natural keys per type', () => {
    expect(naturalKey('threat_detected', { threat_id: 'thr_1' }, 'ins')).to.equal('thr_1');
    expect(naturalKey('provider_health_change', { provider: 'azure' }, 'ins')).to.equal('azure');
    expect(naturalKey('cost_threshold_alert', { scope: 'provider', scope_id: 'openai' }, 'ins')).to.equal('provider:openai');
    expect(naturalKey('cost_threshold_alert', { scope: 'global' }, 'ins')).to.equal('global:*');
    expect(naturalKey('system_status', {}, 'ins')).to.equal('ins');
  });

  it('parses only well-formed envelopes and says why not', () => {
    const good = { type: 'system_status', timestamp: '2026-01-01T00:00:00.000Z', data: { event_id: 'evt_1', instance_id: 'ins_b', extra: 1 }, junk: true };
    expect(parseEnvelope(JSON.stringify(good))).to.deep.equal({ type: good.type, timestamp: good.timestamp, data: good.data });
    expect(parseEnvelope('nope')).to.deep.equal({ invalid: 'not JSON' });
    expect(parseEnvelope(null)).to.deep.equal({ invalid: 'empty message' });
    expect(parseEnvelope('[]')).to.deep.equal({ invalid: 'not an object' });
    expect(parseEnvelope(JSON.stringify({ ...good, type: 'x' }))).to.deep.equal({ invalid: 'unknown type' });
    expect(parseEnvelope(JSON.stringify({ ...good, timestamp: '2026-01-01' }))).to.deep.equal({ invalid: 'bad timestamp' });
    expect(parseEnvelope(JSON.stringify({ ...good, data: [] }))).to.deep.equal({ invalid: 'data is not an object' });
    expect(parseEnvelope(JSON.stringify({ ...good, data: { event_id: 'e' } }))).to.deep.equal({ invalid: 'data lacks event_id or instance_id' });
  });
});
