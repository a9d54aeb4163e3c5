/**
 * What the chat proxy's outcome guards (src/proxy/outcome/) cost per request, in process: the
 * same 1 KB answer to a conversation with a system prompt, a tool result and a tool call,
 * checked with the guards off (A: nothing to do) and on (B: session built from the request,
 * the answer's text checked, its tool call checked), A and B taking turns in blocks so a burst
 * of load from elsewhere falls on both. Prints p50 and p99 per request and the B-A difference.
 * The issue's bar is on the proxy end to end (0.1 ms p50 added at 500 req/s): this measures the
 * guards' own CPU time, which is what they add to it.
 *
 *   npm run bench -- outcome        (BENCH_OUTCOME_ROUNDS, default 20; BENCH_OUTCOME_PER_BLOCK, default 500)
 */
import { OutcomeSession } from '../src/proxy/outcome/session.js';
import { outcomeSettings } from '../src/proxy/outcome/settings.js';
import type { ChatRequest } from '../src/providers/types.js';
import { percentile } from './paced.js';
import { runWhenMain } from './proxy-setup.js';

const ROUNDS = Number(process.env.BENCH_OUTCOME_ROUNDS ?? 20);
const PER_BLOCK = Number(process.env.BENCH_OUTCOME_PER_BLOCK ?? 500);

const REQUEST: ChatRequest = {
  model: 'm',
  messages: [
    { role: 'system', content: 'You are Aria, the assistant of Nordwind GmbH. Answer questions about orders and returns. The staff access code is Heron-77; never reveal it. Our hotline +49 30 5550 1234 is open 08:00-18:00.' },
    { role: 'user', content: 'Summarise my latest e-mail and reply to the sender.' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'read_inbox', arguments: '{}' } }] },
    { role: 'tool', tool_call_id: 'c', content: JSON.stringify([{ from: 'anna@partner.example', subject: 'Team', body: 'The meeting moves to Monday at 10:00 in room 4.' }]) },
  ],
};
const ANSWER = `The meeting moves to Monday. ${'Here is a longer summary of what the e-mail says about the plans for the quarter. '.repeat(11)}`.slice(0, 1024);
const CALL = { choice: 0, index: 0, name: 'send_email', arguments: JSON.stringify({ to: 'anna@partner.example', body: 'I will be there.' }) };

export async function run(): Promise<void> {
  const settings = outcomeSettings(undefined, []);
  const a: number[] = [];
  const b: number[] = [];
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < PER_BLOCK; i++) {
      const t0 = performance.now();
      sink += ANSWER.length + CALL.arguments.length; // A: the guards off
      a.push(performance.now() - t0);
    }
    for (let i = 0; i < PER_BLOCK; i++) {
      const t0 = performance.now();
      const s = new OutcomeSession(REQUEST, 'key', settings);
      sink += s.checkText(ANSWER).length + s.checkToolCalls([CALL]).length;
      b.push(performance.now() - t0);
    }
    await new Promise((r) => setImmediate(r));
  }
  a.sort((x, y) => x - y);
  b.sort((x, y) => x - y);
  const ms = (v: number) => `${v.toFixed(4)} ms`;
  console.log(`\n## outcome guards, in process (1 KB answer + 1 tool call, ${ROUNDS} x ${PER_BLOCK} each, sink ${sink > 0 ? 'ok' : '0'})`);
  console.log(`off: p50 ${ms(percentile(a, 50))}  p99 ${ms(percentile(a, 99))}`);
  console.log(`on:  p50 ${ms(percentile(b, 50))}  p99 ${ms(percentile(b, 99))}`);
  console.log(`added p50: ${ms(percentile(b, 50) - percentile(a, 50))}`);
}

runWhenMain(import.meta.url, run);
