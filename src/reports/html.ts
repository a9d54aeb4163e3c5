import type { ReportData, Usage } from './build.js';
import { esc, horizontalBars, stackedColumns } from './svg.js';

const CSS = `body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#111827;margin:0;background:#f9fafb}
main{max-width:960px;margin:0 auto;padding:24px}h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:#4b5563;margin:0 0 16px}.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px}.card b{display:block;font-size:22px}
section{background:#fff;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px;margin-top:16px;overflow-x:auto}
figure{margin:0}figcaption{font-size:12px;color:#374151}.legend-item{margin-right:12px;white-space:nowrap}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid #e5e7eb}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}.empty{color:#6b7280}`;

const money = (n: number) => `$${n.toFixed(n && n < 0.01 ? 6 : 2)}`;

function time(iso: string, interval: string): string {
  return interval === 'day' ? iso.slice(5, 10) : iso.slice(11, 16);
}

function usageTable(u: Usage, label: string): string {
  if (!u.data.length) return `<p class="empty">No usage in this range.</p>`;
  const rows = u.data
    .map((r) => `<tr><td>${esc(String(r[u.group_by]))}</td><td class="n">${r.requests}</td><td class="n">${r.prompt_tokens}</td><td class="n">${r.completion_tokens}</td><td class="n">${money(r.cost_usd)}</td></tr>`)
    .join('');
  return `<table><thead><tr><th>${esc(label)}</th><th class="n">Requests</th><th class="n">Prompt tokens</th><th class="n">Completion tokens</th><th class="n">Cost</th></tr></thead><tbody>${rows}</tbody></table>`;
}

/** A standalone page: inline CSS and SVG, no script, nothing fetched. */
export function renderHtml(d: ReportData): string {
  const s = d.summary;
  const title = `Warden ${d.report.type} report`;
  const cards = [
    ['Scans', s.scans.total],
    ['Blocked', s.scans.by_verdict.block],
    ['Flagged', s.scans.by_verdict.flag],
    ['Threats', s.threats.total],
    ['Requests', s.usage.requests],
    ['Spend', money(s.usage.cost_usd)],
  ]
    .map(([k, v]) => `<div class="card">${esc(k!)}<b>${esc(v!)}</b></div>`)
    .join('');
  const sections: string[] = [];
  if (d.threats_over_time) {
    const t = d.threats_over_time;
    sections.push(`<section><h2>Threats over time by attack type</h2>${stackedColumns('Threats over time by attack type', t.points.map((p) => ({ label: time(p.start, t.interval), counts: p.counts })), t.groups)}</section>`);
  }
  if (d.top_rules) sections.push(`<section><h2>Top rules</h2>${horizontalBars('Top rules by threats', d.top_rules.data.map((r) => ({ label: r.value, value: r.count })))}</section>`);
  if (d.threats_over_time) {
    const items = [
      { label: 'Scans blocked', value: s.scans.by_verdict.block },
      { label: 'Scans flagged', value: s.scans.by_verdict.flag },
      ...Object.entries(s.threats.by_action).map(([k, v]) => ({ label: `Threats ${k}`, value: v })),
    ];
    sections.push(`<section><h2>Blocked versus flagged</h2>${horizontalBars('Blocked versus flagged', items)}</section>`);
  }
  if (d.top_attack_types) sections.push(`<section><h2>Attack types</h2>${horizontalBars('Threats by attack type', d.top_attack_types.data.map((r) => ({ label: r.value, value: r.count })))}</section>`);
  if (d.top_callers) sections.push(`<section><h2>Top callers</h2>${horizontalBars('Callers behind the most threats', d.top_callers.data.map((r) => ({ label: r.value, value: r.count })))}</section>`);
  sections.push(`<section><h2>Spend by provider</h2>${horizontalBars('Spend by provider (USD)', d.usage_by_provider.data.map((r) => ({ label: String(r.provider), value: r.cost_usd })), money)}${d.usage_by_provider.data.length ? usageTable(d.usage_by_provider, 'Provider') : ''}</section>`);
  if (d.usage_by_model) sections.push(`<section><h2>Usage by model</h2>${usageTable(d.usage_by_model, 'Model')}</section>`);
  if (d.usage_by_key) sections.push(`<section><h2>Usage by key</h2>${usageTable(d.usage_by_key, 'Key')}</section>`);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title><style>${CSS}</style></head>
<body><main><h1>${esc(title)}</h1>
<p class="meta">${esc(d.report.from)} to ${esc(d.report.to)} · generated ${esc(d.report.generated_at)} · ${esc(d.report.report_id)}</p>
<div class="cards">${cards}</div>
${sections.join('\n')}
</main></body></html>
`;
}
