/**
 * `warden scan --server URL`: the inputs go to a running Warden's POST /v1/scan/batch, so a CI
 * step pays an HTTP round trip per batch instead of starting the detectors. The answers have the
 * same fields as an offline verdict, plus the server's scan_id.
 */

export interface RemoteVerdict {
  verdict?: 'allow' | 'flag' | 'block';
  error?: unknown;
  [key: string]: unknown;
}

export class RemoteScanError extends Error {}

export interface RemoteScanner {
  /** Scans the items in one request; one answer per item, in order. */
  scanBatch(items: Array<{ text: string; source?: string }>): Promise<RemoteVerdict[]>;
}

export function remoteScanner(server: string, apiKey: string | undefined): RemoteScanner {
  const base = server.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(`${base}/v1/scan/batch`);
  } catch {
    throw new RemoteScanError(`--server must be a URL such as http://127.0.0.1:8080 (got "${server}")`);
  }
  return {
    async scanBatch(items) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(apiKey ? { 'X-API-Key': apiKey } : {}) },
          body: JSON.stringify({ inputs: items.map((it) => ({ input: it.text, ...(it.source !== undefined ? { source: it.source } : {}) })) }),
        });
      } catch (err) {
        const cause = (err as { cause?: { message?: string } }).cause?.message;
        throw new RemoteScanError(`cannot reach ${base}: ${cause ?? (err as Error).message}`);
      }
      const text = await res.text();
      let body: { results?: Array<Record<string, unknown>>; error?: { message?: string } };
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        throw new RemoteScanError(`${url.href} answered ${res.status} with no JSON: ${text.slice(0, 200)}`);
      }
      if (!res.ok) {
        const hint = res.status === 401 ? ' (give --api-key or set WARDEN_API_KEY)' : '';
        throw new RemoteScanError(`${url.href} answered ${res.status}: ${body.error?.message ?? 'request failed'}${hint}`);
      }
      if (!Array.isArray(body.results) || body.results.length !== items.length) throw new RemoteScanError(`${url.href} answered without one result per input`);
      return body.results.map(({ id: _id, ...r }) => r as RemoteVerdict);
    },
  };
}
