import { expect } from 'chai';
import { startWarden, type InProcessWarden } from '../../../harness/warden.js';

/** /openapi.json states the batch limits (issue 27, item 10), and the server enforces the same value. */
describe('batch limits in /openapi.json', function () {
  this.timeout(30_000);
  let w: InProcessWarden;
  before(async () => {
    w = await startWarden({ limits: { batch_max_items: 3 } });
  });
  after(() => w.close());

  it('/v1/scan/batch inputs and /v1/rag/scan documents name limits.batch_max_items and its value; 413 documented; 4 items are refused', async () => {
    const spec = (await (await fetch(`${w.url}/openapi.json`)).json()) as { paths: Record<string, any> };
    for (const [path, field] of [['/v1/scan/batch', 'inputs'], ['/v1/rag/scan', 'documents']] as const) {
      const op = spec.paths[path].post;
      const schema = op.requestBody.content['application/json'].schema.properties[field];
      expect(schema['x-max-items'], path).to.equal(3);
      expect(schema['x-max-items-setting']).to.equal('limits.batch_max_items');
      expect(schema.description).to.include('limits.batch_max_items').and.include('3 on this server');
      expect(op.responses['413'].description).to.include('limits.batch_max_items (3)');
    }
    const res = await fetch(`${w.url}/v1/scan/batch`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': w.adminKey }, body: JSON.stringify({ inputs: ['a', 'b', 'c', 'd'].map((input) => ({ input })) }) });
    expect(res.status).to.equal(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).to.include('limits.batch_max_items');
  });
});
