/**
 * One document's result kept within a byte limit (resultLineLimit: what one results-topic
 * message can carry). A document with very many matches (the same injection repeated thousands
 * of times) can give a result longer than that. Its verdict must not be lost, so the result
 * keeps every verdict field and loses detail, least useful first:
 *   1. each threat's `spans` cut to its first few (64, 16, 4, 1, then none);
 *   2. then threats from the end of the list (in the order the scan gave them), down to none;
 * and it says so: `"truncated": {"threats": N, "spans": M, "limit_bytes": L}` with the counts
 * the full result had (the scan record, `/v1/scans/{scan_id}`, keeps them all while retained).
 * If even the bare verdict does not fit (only with a tiny limit), the document gets an error
 * result `result_too_large` naming the limit (jobs.chunk_max_bytes).
 */

const SPAN_CAPS = [64, 16, 4, 1, 0];

interface ThreatLike {
  spans?: unknown[];
  [k: string]: unknown;
}

/**
 * `render(body)` gives the result line for a body (the runner's line builder); returns the line
 * for `body` as is when it fits in `limit` bytes, else a trimmed one as above.
 */
export function boundedResult(body: Record<string, unknown>, render: (body: Record<string, unknown>) => string, limit: number): { line: string; trimmed: boolean; failed: boolean } {
  const line = render(body);
  if (line.length * 3 <= limit || Buffer.byteLength(line) <= limit) return { line, trimmed: false, failed: false };
  const threats = Array.isArray(body.threats) ? (body.threats as ThreatLike[]) : [];
  const spans = threats.reduce((n, t) => n + (Array.isArray(t.spans) ? t.spans.length : 0), 0);
  const truncated = { threats: threats.length, spans, limit_bytes: limit };
  const fits = (l: string) => Buffer.byteLength(l) <= limit;
  for (const cap of SPAN_CAPS) {
    const capped = threats.map((t) => (Array.isArray(t.spans) && t.spans.length > cap ? { ...t, spans: t.spans.slice(0, cap) } : t));
    const attempt = render({ ...body, threats: capped, truncated });
    if (fits(attempt)) return { line: attempt, trimmed: true, failed: false };
    if (cap === 0) {
      // As many threats (the first ones) as fit, searched by halving.
      let lo = 0;
      let hi = capped.length;
      let best: string | null = null;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const l = render({ ...body, threats: capped.slice(0, mid), truncated });
        if (fits(l)) {
          best = l;
          lo = mid + 1;
        } else {
          hi = mid - 1;
        }
      }
      if (best !== null) return { line: best, trimmed: true, failed: false };
    }
  }
  return {
    line: render({
      error: {
        message: `the result of this document has ${Buffer.byteLength(line)} bytes; even without its threats it does not fit in one results message of ${limit} bytes (jobs.chunk_max_bytes)`,
        type: 'api_error', code: 'result_too_large', param: null,
      },
    }),
    trimmed: true,
    failed: true,
  };
}
