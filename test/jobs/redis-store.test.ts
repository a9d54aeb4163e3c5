import { expect } from 'chai';
import { RedisJobStore } from '../../src/jobs/redis-store.js';
import { redisForSuite } from '../../harness/redis.js';
import { chunkResults, jobStoreContract, newJob } from '../support/job-store-contract.js';

describe('scan job store: Redis', function () {
  jobStoreContract(async () => {
    const r = await redisForSuite('job-store');
    return { store: new RedisJobStore(r.redis, r.prefix, 3600), cleanup: () => r.cleanup() };
  });

  it('keeps one field per chunk, not per document, and expires every key of the job', async () => {
    const r = await redisForSuite('job-store-keys');
    try {
      const store = new RedisJobStore(r.redis, r.prefix, 3600);
      const job = newJob();
      await store.create(job);
      await store.putResults(job.id, chunkResults(0, 0, ['allow', 'flag', 'allow']));
      await store.putResults(job.id, chunkResults(1, 3, ['allow']));
      const key = `${r.prefix}job:${job.id}`;
      expect(await r.redis.hkeys(`${key}:results`)).to.have.members(['0', '1']);
      expect(await r.redis.zrange(`${key}:starts`, '0', '-1', 'WITHSCORES')).to.deep.equal(['0', '0', '1', '3']);
      for (const k of [key, `${key}:results`, `${key}:starts`]) expect(await r.redis.ttl(k), k).to.be.within(3500, 3600);
    } finally {
      await r.cleanup();
    }
  });
});
