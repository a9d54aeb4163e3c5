import { expect } from 'chai';
import { loadConfig } from '../../src/config/load.js';
import { createTransport } from '../../src/events/wiring.js';
import { KafkaTransport } from '../../src/events/kafka-transport.js';
import { MemoryTransport } from '../../src/events/memory-transport.js';
import { log } from '../../src/log.js';

describe('events: configuration', () => {
  it('defaults to the memory transport and fills the kafka and ws defaults', () => {
    const { config } = loadConfig({ raw: {}, env: {} });
    expect(config.events.transport).to.equal('memory');
    expect(config.kafka).to.include({ topic_prefix: 'warden.', buffer_size: 10000, max_wait_ms: 50, start_timeout_ms: 10000 });
    expect(config.ws).to.include({ max_connections: 10000, max_buffered_bytes: 1048576, heartbeat_ms: 30000, max_message_bytes: 65536 });
    expect(createTransport(config, 'i', log, '0')).to.be.instanceOf(MemoryTransport);
  });

  it('builds the Kafka transport from events.transport, also from the environment', () => {
    const { config } = loadConfig({ raw: {}, env: { WARDEN_EVENTS__TRANSPORT: 'kafka', WARDEN_KAFKA__BROKERS: '[k1:9092, k2:9092]' } });
    expect(config.kafka.brokers).to.deep.equal(['k1:9092', 'k2:9092']);
    const transport = createTransport(config, 'i', log, '0');
    expect(transport).to.be.instanceOf(KafkaTransport);
    expect((transport as KafkaTransport).topic('threat_detected')).to.equal('warden.threats');
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['an unknown transport', { events: { transport: 'rabbitmq' } }, /events\.transport/],
    ['a zero kafka.max_wait_ms', { kafka: { max_wait_ms: 0 } }, /kafka\.max_wait_ms/],
    ['a zero kafka.buffer_size', { kafka: { buffer_size: 0 } }, /kafka\.buffer_size/],
    ['an unknown SASL mechanism', { kafka: { sasl: { mechanism: 'gssapi', username: 'u', password: 'p' } } }, /kafka\.sasl\.mechanism/],
    ['a tiny ws.max_buffered_bytes', { ws: { max_buffered_bytes: 10 } }, /ws\.max_buffered_bytes/],
    ['an unknown ws key', { ws: { max_conections: 5 } }, /max_conections/],
  ];
  for (const [name, raw, pattern] of bad) {
    it(`refuses ${name}, naming the key`, () => {
      expect(() => loadConfig({ raw, env: {} })).to.throw(pattern);
    });
  }
});
