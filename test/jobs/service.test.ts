import { expect } from 'chai';
import { pino } from 'pino';
import { MemoryJobStore } from '../../src/jobs/memory-store.js';
import type { ChunkRunner } from '../../src/jobs/runner.js';
import { JobService } from '../../src/jobs/service.js';
import type { ChunkQueue } from '../../src/jobs/types.js';
import { chunkResults, newJob } from '../support/job-store-contract.js';

/** JobService.results over a real store; submission and scanning are covered by embedded.test.ts. */
describe('JobService results', function () {
  const store = new MemoryJobStore();
  const unused = () => {
    throw new Error('not used by results()');
  };
  const jobs = new JobService({
    store,
    queue: unused as unknown as () => ChunkQueue,
    runner: {} as ChunkRunner,
    limits: () => ({ chunkSize: 3, chunkMaxBytes: 1000, maxDocuments: 100 }),
    instanceId: 'warden-a',
    log: pino({ level: 'silent' }),
  });
  const read = async (id: string, cursor: number, limit: number) => {
    const out: number[] = [];
    for await (const page of jobs.results(id, cursor, limit)) for (const line of page) out.push(JSON.parse(line).index);
    return out;
  };

  it('serves a cancelled job around the chunks never scanned, honouring cursor and limit', async () => {
    const job = newJob({ chunk_size: 3 });
    await store.create(job);
    await store.setChunks(job.id, 4, 12);
    await store.putResults(job.id, chunkResults(0, 0, ['allow', 'allow', 'allow']));
    await store.putResults(job.id, chunkResults(3, 9, ['allow', 'flag', 'allow']));
    await store.transition(job.id, 'cancelled');
    expect(await read(job.id, 0, 100)).to.deep.equal([0, 1, 2, 9, 10, 11]);
    expect(await read(job.id, 0, 4)).to.deep.equal([0, 1, 2, 9]);
    expect(await read(job.id, 2, 2)).to.deep.equal([2, 9]);
    expect(await read(job.id, 10, 100)).to.deep.equal([10, 11]);
  });

  it('stops a running job at the first document without a result, so a client resumes from there', async () => {
    const job = newJob({ chunk_size: 3 });
    await store.create(job);
    await store.setChunks(job.id, 3, 9);
    await store.putResults(job.id, chunkResults(0, 0, ['allow', 'allow', 'allow']));
    await store.putResults(job.id, chunkResults(2, 6, ['allow', 'allow', 'allow']));
    expect(await read(job.id, 0, 100)).to.deep.equal([0, 1, 2]);
    expect(await read(job.id, 1, 1)).to.deep.equal([1]);
    expect(await read(job.id, 6, 100)).to.deep.equal([6, 7, 8]);
  });
});
