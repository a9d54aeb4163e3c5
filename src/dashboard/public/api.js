// Talks to Warden's REST API from the page. The session is the httpOnly svc_access_token cookie
// (sent by the browser on same-origin requests) or, when signed in with a key, X-API-Key.

const KEY = 'warden.apiKey';

/** A failed call, with the status and the message Warden put in its error body. */
export class ApiFailure extends Error {
  constructor(status, message, code, retryAfter) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

let onUnauthorized = () => {};
/** Called with the failure whenever any call answers 401 (expired session, revoked key). */
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

export const apiKey = {
  get: () => sessionStorage.getItem(KEY),
  set: (k) => sessionStorage.setItem(KEY, k),
  clear: () => sessionStorage.removeItem(KEY),
};

export async function api(path, { method = 'GET', body, query, raw = false, quiet401 = false } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const key = apiKey.get();
  if (key) headers['x-api-key'] = key;
  let res;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  } catch {
    throw new ApiFailure(0, 'Warden cannot be reached. Check the connection and try again.', 'network');
  }
  if (raw && res.ok) return res;
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = data?.error;
    const retry = Number(res.headers.get('retry-after')) || null;
    let message = err?.message ?? `Warden answered ${res.status}.`;
    if (res.status === 429) message = `Too many requests: the rate limit is reached. Try again in ${retry ?? 'a few'} seconds.`;
    const failure = new ApiFailure(res.status, message, err?.code ?? null, retry);
    if (res.status === 401 && !quiet401) onUnauthorized(failure);
    throw failure;
  }
  return data;
}
