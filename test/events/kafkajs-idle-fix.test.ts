import { createRequire } from 'node:module';
import { expect } from 'chai';
import { fixKafkajsIdleTimers } from '../../src/events/kafkajs-idle-fix.js';

/**
 * The kafkajs request queue with Warden's fix: an idle connection (nothing pending, not
 * throttled) schedules no check, so it no longer wakes the event loop every millisecond; a
 * request that has to wait (throttled by the broker, or too many in flight) is still sent.
 */
describe('kafkajs idle-timer fix', () => {
  const require = createRequire(import.meta.url);
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as new (o: Record<string, unknown>) => any;
  const logger = { debug() {}, info() {}, warn() {}, error() {} };
  const queue = (maxInFlightRequests: number | null = null) =>
    new RequestQueue({ maxInFlightRequests, requestTimeout: 30_000, enforceRequestTimeout: false, clientId: 't', broker: 'b:1', logger });
  let correlationId = 0;
  const request = (onSend: () => void) => ({
    entry: { correlationId: ++correlationId, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: () => undefined, reject: () => undefined },
    expectResponse: true,
    sendRequest: onSend,
  });

  before(() => {
    expect(fixKafkajsIdleTimers(), 'applies to the installed kafkajs').to.equal(true);
    expect(fixKafkajsIdleTimers(), 'applies once').to.equal(true);
  });

  it('schedules no check for an idle connection, where kafkajs 2.2.4 rescheduled one every millisecond', async () => {
    const q = queue();
    let sent = 0;
    q.push(request(() => sent++));
    expect(sent).to.equal(1);
    q.fulfillRequest({ correlationId, payload: Buffer.alloc(0), size: 0 });
    expect(q.pending).to.have.length(0);
    expect(q.throttleCheckTimeoutId, 'no timer left behind').to.equal(null);
    const counts = countChecks(q);
    await new Promise((r) => setTimeout(r, 50));
    expect(counts.calls, 'checks in 50 ms while idle').to.equal(0);
    q.destroy();
  });

  it('still sends a request held back by broker throttling once the throttle ends', async () => {
    const q = queue();
    q.maybeThrottle(40);
    let sentAt = 0;
    const t0 = Date.now();
    q.push(request(() => { sentAt = Date.now(); }));
    expect(sentAt, 'held while throttled').to.equal(0);
    await new Promise((r) => setTimeout(r, 150));
    expect(sentAt - t0).to.be.within(35, 150);
    q.destroy();
  });

  it('still sends a request held back by the in-flight limit when the one ahead completes', () => {
    const q = queue(1);
    const sent: number[] = [];
    q.push(request(() => sent.push(1)));
    const first = correlationId;
    q.push(request(() => sent.push(2)));
    expect(sent).to.deep.equal([1]);
    q.fulfillRequest({ correlationId: first, payload: Buffer.alloc(0), size: 0 });
    expect(sent).to.deep.equal([1, 2]);
    q.destroy();
  });
});

/** Counts calls of checkPendingRequests on one queue from now on. */
function countChecks(q: { checkPendingRequests: () => void }): { calls: number } {
  const counts = { calls: 0 };
  const original = q.checkPendingRequests.bind(q);
  q.checkPendingRequests = () => {
    counts.calls++;
    original();
  };
  return counts;
}
