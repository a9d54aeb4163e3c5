// Warden dashboard: a small single-page app over Warden's own API. Views are chosen by the URL
// hash (#/overview, #/scans/scn_…); every call goes through api.js; every failure lands in a
// message on the page.
import { api, apiKey, ApiFailure, whenUnauthorized } from './api.js';
import { horizontalBars, stackedColumns } from './charts.js';
import { h, clear, table, field, select, fmtTime, fmtMoney, highlight } from './dom.js';
import { jobs } from './jobs.js';
import { policiesView, policyChoice, routePolicies } from './policies.js';

const state = { me: null, feed: null, events: [], feedStatus: 'disconnected' };
const $ = (id) => document.getElementById(id);
const SESSION_FLAG = 'warden.session';

// ---------- notices and login ----------

function notice(message, kind = 'error') {
  const n = $('notice');
  n.textContent = message;
  n.className = `notice ${kind}`;
  n.hidden = !message;
}

function showLogin(message, kind = 'error') {
  stopFeed();
  state.me = null;
  $('top').hidden = true;
  $('view').hidden = true;
  notice('');
  const m = $('login-message');
  m.textContent = message ?? '';
  m.className = `message ${kind}`;
  m.hidden = !message;
  $('login-view').hidden = false;
  $('username').focus();
}

// Any 401 from any call: the session (or key) is no longer good; say why and go back to login.
whenUnauthorized((failure) => {
  const usedKey = Boolean(apiKey.get());
  apiKey.clear();
  sessionStorage.removeItem(SESSION_FLAG);
  if (usedKey) showLogin(`Signed out: ${failure.message} Sign in again with a valid key or your password.`);
  else showLogin('Your session has expired or was ended. Please log in again.');
});

async function start() {
  $('login-form').addEventListener('submit', onLogin);
  $('key-form').addEventListener('submit', onKeyLogin);
  $('logout').addEventListener('click', onLogout);
  window.addEventListener('hashchange', route);
  const hadSession = sessionStorage.getItem(SESSION_FLAG) || apiKey.get();
  try {
    await enter(await api('/v1/auth/whoami', { quiet401: true }));
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) {
      apiKey.clear();
      sessionStorage.removeItem(SESSION_FLAG);
      showLogin(hadSession ? `Your session has expired or was ended. Please log in again.` : null);
    } else showLogin(err.message);
  }
}

async function onLogin(event) {
  event.preventDefault();
  const username = $('username').value.trim();
  const password = $('password').value;
  if (!username || !password) return showLogin('Enter your username and password.');
  apiKey.clear();
  try {
    await api('/v1/auth/login', { method: 'POST', body: { username, password }, quiet401: true });
    $('password').value = '';
    sessionStorage.setItem(SESSION_FLAG, '1');
    await enter(await api('/v1/auth/whoami'));
  } catch (err) {
    if (err.status === 401) showLogin('Wrong username or password.');
    else if (err.status === 403) showLogin(err.message);
    else showLogin(`Could not log in: ${err.message}`);
  }
}

async function onKeyLogin(event) {
  event.preventDefault();
  const key = $('api-key').value.trim();
  if (!key.startsWith('svc_')) return showLogin('API keys start with "svc_".');
  apiKey.set(key);
  try {
    const me = await api('/v1/auth/whoami', { quiet401: true });
    $('api-key').value = '';
    await enter(me);
  } catch (err) {
    apiKey.clear();
    showLogin(err.status === 401 ? `That key was refused: ${err.message}` : `Could not sign in: ${err.message}`);
  }
}

async function onLogout() {
  stopFeed();
  const usedKey = Boolean(apiKey.get());
  apiKey.clear();
  sessionStorage.removeItem(SESSION_FLAG);
  if (!usedKey) await api('/v1/auth/logout', { method: 'POST' }).catch(() => undefined);
  history.replaceState(null, '', '#/overview');
  showLogin('You have logged out.', 'info');
}

async function enter(me) {
  if (me.role === 'service') {
    apiKey.clear();
    return showLogin('The service role is for API clients and cannot use the dashboard.');
  }
  state.me = me;
  $('login-view').hidden = true;
  $('top').hidden = false;
  $('view').hidden = false;
  $('who').textContent = `${me.subject} · ${me.role}`;
  for (const li of document.querySelectorAll('[data-admin]')) li.hidden = me.role !== 'admin';
  startFeed();
  await route();
}

// ---------- routing ----------

const VIEWS = { overview, live, scans, scan: scanDetail, providers, reports, keys, settings, jobs, policies: (root) => policiesView(root, { notice, isAdmin: state.me.role === 'admin' }) };
const ADMIN_ONLY = new Set(['keys', 'settings']);

let focusOnRoute = false;

async function route(event) {
  if (!state.me) return;
  focusOnRoute = Boolean(event);
  // #/name/arg?query: the query (scan filters) is read by the view itself.
  const [name = 'overview', arg] = location.hash.replace(/^#\/?/, '').split('?')[0].split('/');
  const view = name === 'scans' && arg ? 'scan' : VIEWS[name] ? name : 'overview';
  for (const a of document.querySelectorAll('#nav a')) {
    const current = a.dataset.view === view || (view === 'scan' && a.dataset.view === 'scans');
    if (current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  notice('');
  const root = $('view');
  clear(root);
  if (ADMIN_ONLY.has(view) && state.me.role !== 'admin') {
    root.append(h('h1', {}, 'Not available'), h('p', {}, 'This page is for administrators.'));
    return;
  }
  try {
    await VIEWS[view](root, arg ? decodeURIComponent(arg) : undefined);
    // Keyboard and screen-reader users land on the new page's heading, not on the old link.
    if (focusOnRoute) {
      const heading = root.querySelector('h1');
      heading?.setAttribute('tabindex', '-1');
      heading?.focus({ preventScroll: true });
    }
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 401) return; // already back at login
    root.append(h('p', { class: 'message error', role: 'alert' }, err.message || 'Something went wrong.'));
  }
}

// ---------- live feed (WebSocket, cookie-authenticated) ----------

function startFeed() {
  stopFeed();
  if (apiKey.get()) {
    state.feedStatus = 'unavailable with an API key (log in with a password for the live feed)';
    return;
  }
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws/events`);
  state.feed = ws;
  state.feedStatus = 'connecting';
  ws.onopen = () => {
    setFeedStatus('connected');
    // The resumable stream: after a reconnect, what was missed since the last seq comes first (docs/events.md).
    ws.send(JSON.stringify({ action: 'subscribe', since: state.lastSeq ?? 'latest' }));
  };
  ws.onmessage = (m) => {
    let msg;
    try {
      msg = JSON.parse(m.data);
    } catch {
      return;
    }
    if (!msg.type) return; // replies (pong, subscribed) carry `action`, not `type`
    if (typeof msg.data?.seq === 'number') state.lastSeq = msg.data.seq;
    state.events.unshift(msg);
    state.events.length = Math.min(state.events.length, 200);
    renderFeedItem(msg);
  };
  ws.onclose = (e) => {
    if (state.feed !== ws) return;
    state.feed = null;
    if (e.code === 4003) {
      setFeedStatus('closed: the session is no longer valid');
      // The REST side says why (expired or revoked) and returns to login.
      api('/v1/auth/whoami').catch(() => undefined);
    } else {
      setFeedStatus('disconnected; reconnecting…');
      setTimeout(() => state.me && !state.feed && startFeed(), 2000);
    }
  };
}

function stopFeed() {
  const ws = state.feed;
  state.feed = null;
  if (ws) ws.close(1000);
}

function setFeedStatus(s) {
  state.feedStatus = s;
  const el = $('feed-status');
  if (el) el.textContent = s;
}

function describeEvent(e) {
  const d = e.data ?? {};
  switch (e.type) {
    case 'threat_detected':
      return `${d.attack_type} · ${d.severity} · ${d.action_taken} · rule ${d.rule_id ?? d.detector} · ${d.scan_id}`;
    case 'provider_health_change':
      return `${d.provider}: ${d.previous_status} → ${d.status}${d.reason ? ` (${d.reason})` : ''}`;
    case 'cost_threshold_alert':
      return `${d.scope} ${d.scope_id}: ${fmtMoney(d.spent_usd)} of ${fmtMoney(d.threshold_usd)} this ${d.period} (${d.percent}%)`;
    case 'system_status':
      return `${d.status}${d.detail ? `: ${d.detail}` : ''}`;
    default:
      return JSON.stringify(d);
  }
}

function feedItem(e) {
  const link = e.type === 'threat_detected' && e.data?.scan_id ? h('a', { href: `#/scans/${e.data.scan_id}` }, 'open scan') : null;
  return h('li', { class: `event ${e.type}` }, h('time', { datetime: e.timestamp }, fmtTime(e.timestamp)), h('span', { class: 'badge' }, e.type), h('span', { class: 'what' }, describeEvent(e)), link);
}

function renderFeedItem(e) {
  const list = $('feed');
  if (!list) return;
  $('feed-empty')?.remove();
  list.prepend(feedItem(e));
  while (list.children.length > 200) list.lastElementChild.remove();
}

function live(root) {
  root.append(
    h('h1', {}, 'Live feed'),
    h('p', { class: 'hint' }, 'Events from every Warden instance as they happen: threats, provider health, cost alerts and system status. Status: ', h('span', { id: 'feed-status', role: 'status' }, state.feedStatus)),
    state.events.length ? null : h('p', { id: 'feed-empty', class: 'empty' }, 'No events yet. They appear here as soon as they happen.'),
    h('ol', { id: 'feed', class: 'feed', 'aria-live': 'polite' }, ...state.events.map(feedItem)),
  );
}

// ---------- overview (analytics charts) ----------

const RANGES = { '24h': [86_400_000, 'hour'], '7d': [7 * 86_400_000, 'hour'], '30d': [30 * 86_400_000, 'day'] };

async function overview(root, rangeName = '24h') {
  const [span, interval] = RANGES[rangeName] ?? RANGES['24h'];
  const to = new Date();
  const query = { from: new Date(to.getTime() - span).toISOString(), to: to.toISOString() };
  const picker = h('p', { class: 'range' }, 'Range: ', ...Object.keys(RANGES).map((r) => h('a', { href: `#/overview/${r}`, ...(r === rangeName ? { 'aria-current': 'true' } : {}) }, r)));
  root.append(h('h1', {}, 'Overview'), picker);
  const [summary, series, rules, spend] = await Promise.all([
    api('/v1/analytics/summary', { query }),
    api('/v1/analytics/threats', { query: { ...query, interval, group_by: 'attack_type' } }),
    api('/v1/analytics/top', { query: { ...query, by: 'rule_id', limit: 8 } }),
    api('/v1/analytics/usage', { query: { ...query, group_by: 'provider' } }),
  ]);
  const card = (label, value) => h('div', { class: 'card' }, h('span', {}, label), h('b', {}, String(value)));
  root.append(
    h('div', { class: 'cards' },
      card('Scans', summary.scans.total),
      card('Blocked', summary.scans.by_verdict.block),
      card('Flagged', summary.scans.by_verdict.flag),
      card('Threats', summary.threats.total),
      card('Requests', summary.usage.requests),
      card('Spend', fmtMoney(summary.usage.cost_usd))),
    h('section', { class: 'panel' }, h('h2', {}, 'Threats over time by attack type'),
      stackedColumns('Threats over time by attack type', series.points.map((p) => ({ label: interval === 'day' ? p.start.slice(5, 10) : p.start.slice(11, 16), counts: p.counts })), series.groups)),
    h('div', { class: 'grid2' },
      h('section', { class: 'panel' }, h('h2', {}, 'Top rules'), horizontalBars('Top rules', rules.data.map((r) => ({ label: r.value, value: r.count })))),
      h('section', { class: 'panel' }, h('h2', {}, 'Blocked versus flagged'),
        horizontalBars('Blocked versus flagged', [{ label: 'Blocked scans', value: summary.scans.by_verdict.block }, { label: 'Flagged scans', value: summary.scans.by_verdict.flag }, ...Object.entries(summary.threats.by_action).map(([k, v]) => ({ label: `Threats ${k}`, value: v }))].filter((i) => i.value > 0))),
      h('section', { class: 'panel' }, h('h2', {}, 'Spend by provider'), horizontalBars('Spend by provider', spend.data.map((r) => ({ label: r.provider, value: r.cost_usd })), fmtMoney))),
  );
}

// ---------- scans ----------

const VERDICTS = ['', 'allow', 'flag', 'block'];
const SEVERITIES = ['', 'low', 'medium', 'high', 'critical'];
const SOURCES = ['', 'prompt', 'rag', 'output'];
const ATTACKS = ['', 'prompt_injection', 'indirect_injection', 'jailbreak', 'system_prompt_extraction', 'data_exfiltration', 'obfuscation', 'secret_exposure', 'pii_exposure', 'canary_leak'];

const SCAN_COLUMNS = ['Time', 'Verdict', 'Source', 'Threats', 'Risk', 'Caller', ''];

/**
 * Records name their caller by id (`key_…`, or `user:<name>` for a dashboard login). Admins may
 * list the keys, so the Caller column shows each key's name (its id on hover); other roles see the
 * id. The list is read once per page view.
 */
async function callerNames() {
  if (state.me?.role !== 'admin') return new Map();
  try {
    const { data } = await api('/v1/keys');
    return new Map(data.map((k) => [k.id, k.name]));
  } catch {
    return new Map();
  }
}

function callerCell(caller, names) {
  if (!caller) return '–';
  if (caller.startsWith('user:')) return h('span', { class: 'caller', title: caller }, `${caller.slice(5)} (login)`);
  const name = names.get(caller);
  return name ? h('span', { class: 'caller', title: caller }, name) : caller;
}

async function scans(root) {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  const form = h('form', { class: 'filters', id: 'scan-filters' },
    select('verdict', 'Verdict', VERDICTS, params.get('verdict')),
    select('attack_type', 'Attack type', ATTACKS, params.get('attack_type')),
    select('severity', 'Severity', SEVERITIES, params.get('severity')),
    select('source', 'Source', SOURCES, params.get('source')),
    field('since', 'Since', 'datetime-local', params.get('since') ?? ''),
    field('until', 'Until', 'datetime-local', params.get('until') ?? ''),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply filters'), h('button', { type: 'reset', class: 'secondary' }, 'Clear')));
  const body = h('tbody');
  const names = await callerNames();
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, 'Load more');
  const status = h('p', { role: 'status', class: 'hint' });
  root.append(h('h1', {}, 'Scans'), form, status,
    h('div', { class: 'table-wrap' }, h('table', { class: 'scans stack' }, h('thead', {}, h('tr', {}, ...SCAN_COLUMNS.map((c) => h('th', { scope: 'col' }, c)))), body)),
    more);
  const filters = () => {
    const q = {};
    for (const [k, v] of new FormData(form)) if (v) q[k] = k === 'since' || k === 'until' ? new Date(v).toISOString() : v;
    return q;
  };
  let cursor = null;
  let shown = 0;
  const load = async (reset) => {
    if (reset) {
      clear(body);
      cursor = null;
      shown = 0;
    }
    const page = await api('/v1/scans', { query: { ...filters(), limit: 50, cursor } });
    for (const r of page.data) {
      const cells = [fmtTime(r.created_at), h('span', { class: `verdict ${r.verdict}` }, r.verdict), r.source, r.threats.map((t) => `${t.attack_type} (${t.severity})`).join(', ') || '–', r.risk_score.toFixed(2), callerCell(r.caller, names), h('a', { href: `#/scans/${r.scan_id}`, 'aria-label': `Open scan ${r.scan_id}` }, 'Open')];
      body.append(h('tr', {}, ...cells.map((c, i) => h('td', { 'data-label': SCAN_COLUMNS[i] }, c))));
    }
    shown += page.data.length;
    cursor = page.next_cursor;
    more.hidden = !cursor;
    status.textContent = shown ? `${shown} scan${shown === 1 ? '' : 's'} shown.` : 'No scans match these filters.';
  };
  const run = (reset) => load(reset).catch((err) => err.status !== 401 && notice(err.message));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (v) q.set(k, v);
    history.replaceState(null, '', `#/scans${q.size ? `?${q}` : ''}`);
    run(true);
  });
  form.addEventListener('reset', () => setTimeout(() => form.requestSubmit(), 0));
  more.addEventListener('click', () => run(false));
  await load(true);
}

async function scanDetail(root, id) {
  const r = await api(`/v1/scans/${encodeURIComponent(id.split('?')[0])}`);
  root.append(
    h('p', {}, h('a', { href: '#/scans' }, '← All scans')),
    h('h1', {}, 'Scan ', h('code', {}, r.scan_id)),
    h('dl', { class: 'facts' },
      ...[['Verdict', h('span', { class: `verdict ${r.verdict}` }, r.verdict)], ['Time', fmtTime(r.created_at)], ['Source', r.source], ['Risk score', r.risk_score.toFixed(2)], ['Caller', callerCell(r.caller, await callerNames())], ['Request', r.request_id], ['Instance', r.instance_id], ['Input length', `${r.input_length} characters${r.input_truncated ? ' (excerpt shown)' : ''}`]]
        .flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
    h('h2', {}, 'Input'),
    r.input === null ? h('p', { class: 'hint' }, 'The input was not stored (storage.store_input: none).') : h('pre', { class: 'input', id: 'scan-input' }, ...highlight(r.input, r.threats)),
    h('h2', {}, 'Threats'),
    r.threats.length
      ? table(['Attack type', 'Severity', 'Confidence', 'Action', 'Rule', 'Message', 'Spans'], r.threats.map((t) => [t.attack_type, t.severity, t.confidence.toFixed(2), t.action_taken, t.rule_id || t.detector, t.message, t.spans.map((s) => `${s.start}–${s.end}`).join(', ') || '–']))
      : h('p', { class: 'empty' }, 'No threats found.'),
  );
}

// ---------- providers ----------

async function providers(root) {
  const res = await fetch('/health/providers', { credentials: 'same-origin' }).then((x) => x.json());
  root.append(h('h1', {}, 'Provider health'),
    res.providers.length
      ? table(['Provider', 'Type', 'Status', 'Latency', 'Last check', 'Last error', 'Models'], res.providers.map((p) => [p.name, p.type, h('span', { class: `status ${p.status}` }, p.status), p.latency_ms === null ? '–' : `${Math.round(p.latency_ms)} ms`, p.last_check ? fmtTime(p.last_check) : '–', p.last_error ?? '–', (p.models ?? []).join(', ') || '–']))
      : h('p', { class: 'empty' }, 'No providers are configured.'));
}

// ---------- reports ----------

async function reports(root) {
  const form = h('form', { class: 'filters', id: 'report-form' },
    select('type', 'Type', ['security', 'usage']),
    select('format', 'Format', ['html', 'csv', 'json']),
    field('from', 'From', 'datetime-local', ''),
    field('to', 'To', 'datetime-local', ''),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Build report')));
  const list = h('div', { class: 'table-wrap' });
  root.append(h('h1', {}, 'Reports'), h('p', { class: 'hint' }, 'Built in the background from the analytics; kept for 7 days. Leave the range empty for the last 24 hours.'), form, list);
  const refresh = async () => {
    const { data } = await api('/v1/reports', { query: { limit: 50 } });
    clear(list);
    list.append(data.length
      ? table(['Created', 'Type', 'Format', 'Range', 'Status', ''], data.map((r) => [fmtTime(r.created_at), r.type, r.format, `${fmtTime(r.from)} – ${fmtTime(r.to)}`, r.status === 'failed' ? `failed: ${r.error}` : r.status, r.status === 'ready' ? h('button', { type: 'button', class: 'secondary', 'data-download': r.report_id, onclick: () => download(r) }, 'Download') : '']))
      : h('p', { class: 'empty' }, 'No reports yet.'));
    return data;
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(form));
    try {
      await api('/v1/reports', { method: 'POST', body: { type: f.type, format: f.format, ...(f.from ? { from: new Date(f.from).toISOString() } : {}), ...(f.to ? { to: new Date(f.to).toISOString() } : {}) } });
      notice('Report requested; it appears below when ready.', 'info');
      for (let i = 0; i < 20; i++) {
        const data = await refresh();
        if (!data.some((r) => r.status === 'pending')) break;
        await new Promise((r) => setTimeout(r, 500));
      }
    } catch (err) {
      if (err.status !== 401) notice(err.message);
    }
  });
  await refresh();
}

async function download(r) {
  try {
    const res = await api(`/v1/reports/${r.report_id}/download`, { raw: true });
    const url = URL.createObjectURL(await res.blob());
    const a = h('a', { href: url, download: r.filename });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (err) {
    if (err.status !== 401) notice(err.message);
  }
}

// ---------- API keys (admin) ----------

async function keys(root) {
  const form = h('form', { class: 'filters', id: 'key-create' },
    field('name', 'Name', 'text', '', { required: true, maxlength: 100 }),
    select('role', 'Role', ['service', 'analyst', 'admin']),
    field('rate_limit', 'Rate limit (per minute, optional)', 'number', '', { min: 1 }),
    field('expires_at', 'Expires (optional)', 'datetime-local', ''),
    await policyChoice(),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create key')));
  const secret = h('div', { id: 'new-secret', hidden: true, class: 'secret', role: 'status' });
  const list = h('div', { class: 'table-wrap' });
  root.append(h('h1', {}, 'API keys'), form, secret, h('h2', {}, 'Keys'), list);
  const refresh = async () => {
    const { data } = await api('/v1/keys');
    clear(list);
    list.append(table(['Name', 'ID', 'Role', 'Policy', 'Created', 'Last used', 'Expires', 'Status', ''], data.map((k) => [k.name, h('code', {}, k.id), k.role, k.policy ?? '–', fmtTime(k.created_at), k.last_used_at ? fmtTime(k.last_used_at) : 'never', k.expires_at ? fmtTime(k.expires_at) : '–', k.revoked_at ? `revoked ${fmtTime(k.revoked_at)}` : 'active',
      k.revoked_at ? '' : h('button', { type: 'button', class: 'danger', 'aria-label': `Revoke ${k.name} (${k.id})`, onclick: () => revoke(k) }, 'Revoke')]), 'keys'));
  };
  const revoke = async (k) => {
    if (!confirm(`Revoke the key "${k.name}" (${k.id})? Clients using it will be refused at once.`)) return;
    try {
      await api(`/v1/keys/${k.id}`, { method: 'DELETE' });
      notice(`Key "${k.name}" was revoked.`, 'info');
      await refresh();
    } catch (err) {
      if (err.status !== 401) notice(err.message);
    }
  };
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(form));
    if (!f.name.trim()) return notice('Give the key a name.');
    try {
      const created = await api('/v1/keys', { method: 'POST', body: { name: f.name.trim(), role: f.role, ...(f.rate_limit ? { rate_limit: Number(f.rate_limit) } : {}), ...(f.expires_at ? { expires_at: new Date(f.expires_at).toISOString() } : {}), ...(f.policy ? { policy: f.policy } : {}) } });
      form.reset();
      clear(secret);
      secret.append(h('p', {}, h('strong', {}, `Key "${created.name}" created. Copy the secret now: it is shown only once.`)), h('code', { id: 'secret-value' }, created.key), h('button', { type: 'button', class: 'secondary', onclick: () => navigator.clipboard?.writeText(created.key) }, 'Copy'));
      secret.hidden = false;
      await refresh();
    } catch (err) {
      if (err.status !== 401) notice(err.message);
    }
  });
  await refresh();
}

// ---------- settings (admin) ----------

async function settings(root) {
  root.append(h('h1', {}, 'Settings'));
  let current;
  try {
    const got = await api('/v1/settings');
    current = got.settings ?? got;
  } catch (err) {
    if (err.status === 404 || err.status === 501) {
      root.append(h('p', { class: 'message error' }, 'This Warden does not offer runtime settings (GET /v1/settings is not served). Change security.rate_limit, security.mode and security.block_severity in warden.yaml instead.'));
      return;
    }
    throw err;
  }
  const form = h('form', { class: 'settings', id: 'settings-form' },
    field('rate_limit', 'Rate limit (requests per minute per credential)', 'number', current.rate_limit, { min: 1, required: true }),
    select('mode', 'Mode', ['enforce', 'monitor'], current.mode),
    select('block_severity', 'Lowest severity that blocks', ['low', 'medium', 'high', 'critical'], current.block_severity),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save settings')));
  root.append(h('p', { class: 'hint' }, 'Applied to every Warden instance at once and announced as a system_status event.'), form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const f = Object.fromEntries(new FormData(form));
    const rate = Number(f.rate_limit);
    if (!Number.isInteger(rate) || rate < 1) return notice('The rate limit must be a whole number of at least 1.');
    try {
      const answer = await api('/v1/settings', { method: 'PUT', body: { rate_limit: rate, mode: f.mode, block_severity: f.block_severity } });
      const saved = answer?.settings ?? answer ?? {};
      notice(`Settings saved: rate limit ${saved.rate_limit ?? rate}/min, mode ${saved.mode ?? f.mode}, blocking from ${saved.block_severity ?? f.block_severity}.`, 'info');
    } catch (err) {
      if (err.status !== 401) notice(err.message);
    }
  });
  await routePolicies(root);
}

start();
