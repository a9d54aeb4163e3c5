import type { ReportData, Top, Usage } from './build.js';

/**
 * One tidy table, long format, so every section fits the same five columns:
 *   section, name, period_start, metric, value
 * e.g. `summary,scans,,verdict:block,3` · `threats_over_time,jailbreak,2026-11-21T03:00:00.000Z,count,2`
 * · `top_rules,pi.ignore-previous,,count,4` · `usage_by_provider,openai,,cost_usd,0.0125`.
 * period_start is empty except for time series. Text that a spreadsheet would run as a formula
 * (leading = + - @) is prefixed with an apostrophe.
 */
export const CSV_COLUMNS = ['section', 'name', 'period_start', 'metric', 'value'] as const;

type Row = [string, string, string, string, string | number];

export function renderCsv(d: ReportData): string {
  const rows: Row[] = [];
  const s = d.summary;
  rows.push(['report', d.report.type, '', 'from', d.report.from], ['report', d.report.type, '', 'to', d.report.to], ['report', d.report.type, '', 'generated_at', d.report.generated_at]);
  rows.push(['summary', 'scans', '', 'total', s.scans.total]);
  for (const [k, v] of Object.entries(s.scans.by_verdict)) rows.push(['summary', 'scans', '', `verdict:${k}`, v]);
  for (const [k, v] of Object.entries(s.scans.by_source)) rows.push(['summary', 'scans', '', `source:${k}`, v]);
  rows.push(['summary', 'threats', '', 'total', s.threats.total]);
  for (const dim of ['attack_type', 'severity', 'action'] as const) {
    for (const [k, v] of Object.entries(s.threats[`by_${dim}`])) rows.push(['summary', 'threats', '', `${dim}:${k}`, v]);
  }
  for (const [k, v] of Object.entries(s.usage)) rows.push(['summary', 'usage', '', k, v]);
  if (d.threats_over_time) {
    for (const p of d.threats_over_time.points) {
      rows.push(['threats_over_time', '(all)', p.start, 'count', p.total]);
      for (const [k, v] of Object.entries(p.counts)) rows.push(['threats_over_time', k, p.start, 'count', v]);
    }
  }
  const top = (section: string, t?: Top) => t?.data.forEach((r) => rows.push([section, r.value, '', 'count', r.count], [section, r.value, '', 'share', r.share]));
  top('top_rules', d.top_rules);
  top('top_attack_types', d.top_attack_types);
  top('top_callers', d.top_callers);
  const usage = (section: string, u?: Usage) =>
    u?.data.forEach((r) => {
      const name = String(r[u.group_by]);
      for (const m of ['requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd'] as const) rows.push([section, name, '', m, r[m] as number]);
    });
  usage('usage_by_provider', d.usage_by_provider);
  usage('usage_by_model', d.usage_by_model);
  usage('usage_by_key', d.usage_by_key);
  return [CSV_COLUMNS.join(','), ...rows.map((r) => r.map(cell).join(','))].join('\r\n') + '\r\n';
}

function cell(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const safe = /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
