import { MemoryJobStore } from '../../src/jobs/memory-store.js';
import { jobStoreContract } from '../support/job-store-contract.js';

describe('scan job store: memory', function () {
  jobStoreContract(async () => ({ store: new MemoryJobStore(), cleanup: async () => undefined }));
});
