import { expect } from 'chai';
import { answerText, requestFields, scanGroups, streamText } from '../../src/scan-service/chat-fields.js';
import { bufferGuard, incrementalGuard, type OutputCheck } from '../../src/proxy/output-guard.js';
import type { ChatCompletionChunk } from '../../src/providers/types.js';
import { Gen, KEY, marker, randomAnswer, randomRequest, rng } from '../support/random-chat.js';
import { createOfflineScanner, type OfflineScanner } from '../../src/scanning/offline.js';
import type { Target } from '../../src/scanning/types.js';

/**
 * Property: a chat request or answer built at random from the OpenAI chat schema (every
 * message role, content part, tool and legacy function shape, plus unknown fields at every
 * level), with a marker attack in ONE random string field the model reads, is blocked: the
 * field map hands that field to a scan and the real engine (shipped rules and plugins) blocks
 * it. Seeded, so a failure names a reproducible case. Requests carry a prompt injection,
 * answers an AWS key (streamed answers split it across chunks).
 */

const SEED = 0x13;
const CASES = 2000;

describe('chat field map, property: a marker in any random field of a random request or answer is blocked', function () {
  this.timeout(300_000);
  let scanner: OfflineScanner;
  before(async () => {
    scanner = await createOfflineScanner();
  });
  const blocks = (text: string, target: Target) => scanner.scan(text, target).verdict === 'block';

  it(`requests: ${CASES} seeded cases, 100 % blocked, and the benign ones allowed`, () => {
    const r = rng(SEED);
    let blocked = 0;
    let benignBlocked = 0;
    const benignSeen: string[] = [];
    const misses: string[] = [];
    for (let i = 0; i < CASES; i++) {
      const g = new Gen(r);
      const system = g.chance(0.5);
      const req = randomRequest(g, system);
      const groups = scanGroups(requestFields(req, { scanSystemTurns: system }));
      const falseBlock = groups.find((gr) => blocks(gr.text, gr.target));
      if (falseBlock) { benignBlocked++; benignSeen.push(`case ${i}: ${falseBlock.target} ${JSON.stringify(falseBlock.text).slice(0, 160)}`); }
      const slot = g.pick(g.slots);
      slot.set(marker(slot.kind));
      const hit = scanGroups(requestFields(req, { scanSystemTurns: system })).some((gr) => blocks(gr.text, gr.target));
      if (hit) blocked++;
      else if (misses.length < 5) misses.push(`case ${i}: ${slot.where} (${slot.kind})`);
    }
    expect(misses, misses.join('\n')).to.deep.equal([]);
    expect(blocked).to.equal(CASES);
    // The benign half guards the field map against making blocks out of benign fields (a wrong
    // join or a field scanned as the wrong target blocks many). The texts are random word salads
    // of task words ("this summarise please Paris", "get weather", an image link); the learned
    // model scores a few of them past its block margin (the shipped model blocks 8 of 2,000, all
    // `prompt` texts; the one before it 3: docs/detectors.md "Known misses"), so up to 0.5 % is
    // tolerated and named. A wrong join or target blocks far more than that.
    expect(benignBlocked, benignSeen.join('\n')).to.be.at.most(CASES / 200);
  });

  it(`answers: ${CASES} seeded cases, not streamed and streamed (buffer and incremental guards), 100 % blocked and no key released`, async () => {
    const r = rng(SEED + 1);
    const check: OutputCheck = async (text) => ({ blocked: blocks(text, 'output'), threat_ids: [], scan_ids: [] });
    const misses: string[] = [];
    for (let i = 0; i < CASES; i++) {
      const g = new Gen(r);
      const a = randomAnswer(g);
      const slot = g.pick(a.slots);
      slot.set(`config: aws_access_key_id = ${KEY} end`);
      if (!blocks(answerText(a.completion), 'output')) misses.push(`case ${i} not streamed: ${slot.where}`);
      const chunks = a.chunks;
      if (!blocks(streamText(chunks), 'output')) misses.push(`case ${i} stream text: ${slot.where}`);
      // The guards themselves, on a quarter of the cases (each runs several scans).
      if (i % 4 === 0) {
        for (const guard of [bufferGuard(from(chunks), check), incrementalGuard(from(chunks), check, { chunkChars: 48, overlapChars: 32 })]) {
          let released = '';
          let stopped = false;
          try {
            for await (const c of guard) released += JSON.stringify(c);
          } catch {
            stopped = true;
          }
          if (!stopped || released.includes('AKIA') || released.includes('TW2N')) misses.push(`case ${i} guard released: ${slot.where}`);
        }
      }
      if (misses.length >= 5) break;
    }
    expect(misses, misses.join('\n')).to.deep.equal([]);
  });
});

async function* from(chunks: ChatCompletionChunk[]): AsyncGenerator<ChatCompletionChunk> {
  yield* chunks;
}
