// Scan jobs view (#/jobs): every job with its progress, and a link to download its results
// (docs/jobs.md). Kept in its own file; app.js only lists the view.
import { api } from './api.js';
import { h, clear, table, fmtTime } from './dom.js';

function progress(j) {
  const { total, scanned } = j.counts;
  const pct = total ? Math.floor((scanned / total) * 100) : 0;
  return h('span', { class: 'job-progress' },
    h('progress', { max: 100, value: pct, 'aria-label': `${pct}% of job ${j.id}` }),
    ` ${pct}% (${scanned}/${total ?? '?'})`);
}

function eta(j) {
  if (j.state === 'done' || j.state === 'cancelled' || j.state === 'failed') return '–';
  const rate = j.docs_per_second === null ? '' : `${j.docs_per_second}/s, `;
  return j.eta_seconds === null ? 'starting' : `${rate}${Math.ceil(j.eta_seconds)} s left`;
}

async function downloadResults(j) {
  const res = await api(`/v1/scan/jobs/${j.id}/results`, { raw: true });
  const url = URL.createObjectURL(await res.blob());
  const a = h('a', { href: url, download: `${j.id}.results.jsonl` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The view; refreshes every 2 s while a job runs and the view is shown. */
export async function jobs(root) {
  const list = h('div', { class: 'table-wrap', id: 'jobs-table' });
  root.append(h('h1', {}, 'Scan jobs'),
    h('p', { class: 'hint' }, 'Jobs submitted with POST /v1/scan/jobs or warden scan --job; any instance shows every job.'), list);
  const refresh = async () => {
    const { data } = await api('/v1/scan/jobs', { query: { limit: 50 } });
    clear(list);
    list.append(data.length
      ? table(['Created', 'Job', 'State', 'Progress', 'Flagged', 'Blocked', 'Errors', 'Rate / left', ''], data.map((j) => [
        fmtTime(j.created_at), j.id, h('span', { class: `status ${j.state}` }, j.state), progress(j),
        String(j.counts.flagged), String(j.counts.blocked), String(j.counts.errors), eta(j),
        j.counts.scanned > 0 ? h('button', { type: 'button', class: 'secondary', 'data-results': j.id, onclick: () => downloadResults(j).catch(() => undefined) }, 'Results') : '',
      ]))
      : h('p', { class: 'empty' }, 'No scan jobs yet.'));
    return data;
  };
  const data = await refresh();
  if (data.some((j) => j.state === 'queued' || j.state === 'running')) {
    const timer = setInterval(async () => {
      if (!root.contains(list)) return clearInterval(timer);
      const now = await refresh().catch(() => []);
      if (!now.some((j) => j.state === 'queued' || j.state === 'running')) clearInterval(timer);
    }, 2000);
  }
}
