/**
 * A chunk's results as messages on `<prefix>scan-results`, each at most `maxBytes` (UTF-8) so
 * that none passes the brokers' `message.max.bytes` (jobs.chunk_max_bytes bounds it, like the
 * chunks). A message is
 *   {"job","chunk","instance_id","part","parts","start","count","results":[line, ...]}
 * with `start` the input index of its first result and `count` how many it holds; the parts of
 * one chunk are consecutive ranges, in input order. Usually a chunk is one message (`parts` 1).
 * A rescanned chunk may be split differently (its result lines differ in scan_id, latency,
 * instance), so a reader deduplicates on (job, index), each result line's own fields.
 */

/** Where a message's results begin: everything before the first line. */
function head(job: string, chunk: number, instanceId: string, part: number, parts: number, start: number, count: number): string {
  return `{"job":${JSON.stringify(job)},"chunk":${chunk},"instance_id":${JSON.stringify(instanceId)},"part":${part},"parts":${parts},"start":${start},"count":${count},"results":[`;
}

/**
 * The most bytes one result line may have so that a message holding only it fits in maxBytes
 * (the envelope counted with room for the largest numbers it can hold).
 */
export function resultLineLimit(job: string, instanceId: string, maxBytes: number): number {
  const big = Number.MAX_SAFE_INTEGER;
  return maxBytes - Buffer.byteLength(head(job, big, instanceId, big, big, big, big)) - 2;
}

/**
 * The messages for a chunk's result lines (index start, start + 1, ...): as few as fit in
 * maxBytes each, every line whole, in order. A line longer than resultLineLimit (the runner
 * trims results to it, so only a caller that did not) goes alone into a message of its own.
 */
export function resultMessages(job: string, chunk: number, instanceId: string, start: number, lines: string[], maxBytes: number): string[] {
  const envelope = maxBytes - resultLineLimit(job, instanceId, maxBytes);
  // The usual case without measuring a line: a UTF-16 unit is at most 3 UTF-8 bytes.
  let chars = lines.length;
  for (const l of lines) chars += l.length;
  if (envelope + 3 * chars <= maxBytes) return [`${head(job, chunk, instanceId, 0, 1, start, lines.length)}${lines.join(',')}]}`];

  const groups: { from: number; to: number }[] = [];
  let from = 0;
  let bytes = envelope;
  lines.forEach((line, i) => {
    const b = Buffer.byteLength(line) + 1;
    if (i > from && bytes + b > maxBytes) {
      groups.push({ from, to: i });
      from = i;
      bytes = envelope;
    }
    bytes += b;
  });
  if (lines.length > 0 || groups.length === 0) groups.push({ from, to: lines.length });
  return groups.map((g, part) => `${head(job, chunk, instanceId, part, groups.length, start + g.from, g.to - g.from)}${lines.slice(g.from, g.to).join(',')}]}`);
}
