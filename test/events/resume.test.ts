/**
 * The resumable event stream on one instance (memory transport: seqs from the bus), through a
 * real Warden: `since` replays what a client missed, then the live stream, with no gap and no
 * duplicate; `complete: false` when the retention was passed; a bad `since` is an error naming it.
 */
import { expect } from 'chai';
import { startWarden, type InProcessWarden } from '../../harness/warden.js';
import { AUDIENCE, ISSUER, RecordingClient, SECRET, makeToken, sleep } from '../support/events.js';

type Json = Record<string, any>;

describe('events: resuming the WebSocket stream with since (one instance)', function () {
  this.timeout(60_000);
  let w: InProcessWarden;
  let ws: string;
  const reloads = (c: RecordingClient) => (c.events() as Json[]).filter((e) => e.type === 'system_status' && e.data.status === 'config_reloaded');

  before(async () => {
    w = await startWarden({ auth: { jwt: { secret: SECRET, issuer: ISSUER, audience: AUDIENCE } }, events: { replay_retention: 50 } });
    ws = `${w.url.replace(/^http/, 'ws')}/ws/events`;
  });
  after(() => w?.close());

  /** Raises n events on the instance's own bus, as a config reload does. */
  function raise(n: number): string[] {
    return Array.from({ length: n }, () => w.server.services.events.emit('system_status', { status: 'config_reloaded', version: '0.1.0', detail: 'test' }).data.event_id);
  }

  it('replays what was missed, then goes live, every event exactly once and in seq order', async () => {
    const a = await RecordingClient.bearer(ws, await makeToken());
    a.send({ action: 'subscribe', since: 'latest' });
    const [reply] = (await a.waitForReplies(1)) as Json[];
    expect(reply).to.include({ action: 'subscribed', replayed: 0, complete: true });
    expect(reply.event_types).to.not.include('scan_job_progress');
    const before = raise(5);
    await a.waitFor(() => reloads(a).length >= 5, 3000, '5 events');
    a.close();
    const lastSeq = reloads(a).at(-1)!.data.seq as number;
    const missed = raise(7);
    await sleep(100);
    const b = await RecordingClient.bearer(ws, await makeToken());
    b.send({ action: 'subscribe', event_types: ['system_status'], since: lastSeq });
    const [resumed] = (await b.waitForReplies(1)) as Json[];
    expect(resumed).to.include({ action: 'subscribed', since: lastSeq, replayed: 7, complete: true });
    const live = raise(3);
    await b.waitFor(() => reloads(b).length >= 10, 3000, '10 events');
    await sleep(200);
    expect(reloads(a).map((e) => e.data.event_id)).to.deep.equal(before);
    expect(reloads(b).map((e) => e.data.event_id)).to.deep.equal([...missed, ...live]);
    const seqs = (b.events() as Json[]).map((e) => e.data.seq as number);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]!).to.be.above(seqs[i - 1]!);
    expect(seqs[0]!).to.be.above(lastSeq);
    b.close();
  });

  it('says complete: false when the client was away longer than events.replay_retention', async () => {
    const a = await RecordingClient.bearer(ws, await makeToken());
    a.send({ action: 'subscribe', since: 'latest' });
    const [reply] = (await a.waitForReplies(1)) as Json[];
    a.close();
    raise(60);
    const b = await RecordingClient.bearer(ws, await makeToken());
    b.send({ action: 'subscribe', since: reply.last_seq });
    const [resumed] = (await b.waitForReplies(1)) as Json[];
    expect(resumed).to.include({ complete: false, replayed: 50 });
    b.close();
  });

  it('refuses a since that is not a seq, naming it', async () => {
    const c = await RecordingClient.bearer(ws, await makeToken());
    c.send({ action: 'subscribe', since: 'yesterday' });
    const [reply] = (await c.waitForReplies(1)) as Json[];
    expect(reply.action).to.equal('error');
    expect(reply.message).to.match(/"since" must be the seq of the last event received .* got "yesterday"/);
    c.close();
  });
});
