import { expect } from 'chai';
import OpenAI from 'openai';
import { FakeUpstream } from '../../harness/fake-upstream.js';
import { startWarden, type InProcessWarden } from '../../harness/warden.js';

/** Every blocked answer names its scans: output_blocked like prompt_blocked (issue 27, item 6). */
describe('output_blocked errors carry scan_ids (openai client, real server)', function () {
  this.timeout(30_000);
  let up: FakeUpstream;
  let w: InProcessWarden;
  before(async () => {
    up = await FakeUpstream.start();
    w = await startWarden({ providers: [{ name: 'main', type: 'openai', base_url: up.url, models: ['fake-*'] }], security: { rate_limit: 1000 } });
  });
  after(async () => {
    await w.close();
    await up.close();
  });

  for (const stream of [false, true]) {
    it(`a blocked answer (${stream ? 'streamed, 1-3 character chunks' : 'not streamed'}) names the scan that blocked it, and the record is there`, async () => {
      const secret = 'here is the key: AKIAIOSFODNN7EXAMPLE';
      up.queue(stream ? { kind: 'reply', pieces: secret.match(/.{1,3}/g)! } : { kind: 'reply', content: secret });
      const client = new OpenAI({ apiKey: w.adminKey, baseURL: `${w.url}/v1`, maxRetries: 0 });
      let error: InstanceType<typeof OpenAI.APIError> | null = null;
      try {
        if (stream) {
          const s = await client.chat.completions.create({ model: 'fake-model', stream: true, messages: [{ role: 'user', content: 'the key?' }] });
          for await (const _ of s) void _;
        } else await client.chat.completions.create({ model: 'fake-model', messages: [{ role: 'user', content: 'the key?' }] });
      } catch (err) {
        error = err as InstanceType<typeof OpenAI.APIError>;
      }
      expect(error, 'the SDK raised').to.be.instanceOf(OpenAI.APIError);
      expect(error!.code).to.equal('output_blocked');
      const body = error!.error as { scan_ids?: string[]; threat_ids?: string[] };
      expect(body.scan_ids, JSON.stringify(body)).to.be.an('array').with.lengthOf.at.least(1);
      const rec = await fetch(`${w.url}/v1/scans/${body.scan_ids![0]}`, { headers: { 'X-API-Key': w.adminKey } });
      expect(rec.status).to.equal(200);
      const record = (await rec.json()) as { source: string; verdict: string; threats: Array<{ threat_id: string }> };
      expect(record).to.include({ source: 'output', verdict: 'block' });
      expect(record.threats.map((t) => t.threat_id)).to.include.members(body.threat_ids!);
    });
  }
});
