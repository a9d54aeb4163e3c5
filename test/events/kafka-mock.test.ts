import { expect } from 'chai';
import { Kafka, logLevel } from 'kafkajs';
import { startKafkaMock } from '../support/kafka-mock/index.js';

describe('events: the librdkafka mock cluster launcher', function () {
  this.timeout(20_000);
  const port = 41000 + Math.floor(Math.random() * 8000);

  it('listens on the fixed port, pre-creates the topics, and can be restarted on the same address', async () => {
    const first = await startKafkaMock({ topics: ['t.one', 't.two'], port, partitions: 2 });
    expect(first.brokers).to.deep.equal([`127.0.0.1:${port}`]);
    const admin = new Kafka({ brokers: first.brokers, clientId: 'check', logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: ['t.one', 't.two'] });
    expect(meta.topics.map((t) => [t.name, t.partitions.length]).sort()).to.deep.equal([['t.one', 2], ['t.two', 2]]);
    await admin.disconnect();
    await first.stop();
    const second = await startKafkaMock({ topics: ['t.one'], port });
    expect(second.brokers).to.deep.equal(first.brokers);
    await second.stop();
  });

  it('says which port is taken instead of crashing', async () => {
    const running = await startKafkaMock({ topics: ['t'], port });
    try {
      let error: Error | null = null;
      await startKafkaMock({ topics: ['t'], port }).catch((e: Error) => { error = e; });
      expect(error).to.be.instanceOf(Error);
      expect(error!.message).to.match(new RegExp(`port ${port} is not free`));
    } finally {
      await running.stop();
    }
  });
});
