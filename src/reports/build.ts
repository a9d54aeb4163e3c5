import { oldestKept, type Resolution } from '../analytics/buckets.js';
import type { Analytics, Range } from '../analytics/index.js';
import type { ReportType } from './store.js';

export type Summary = Awaited<ReturnType<Analytics['summary']>>;
export type ThreatSeries = Awaited<ReturnType<Analytics['threats']>>;
export type Top = Awaited<ReturnType<Analytics['top']>>;
export type Usage = Awaited<ReturnType<Analytics['usage']>>;

/** Everything a report shows; the JSON format is exactly this, CSV and HTML render it. */
export interface ReportData {
  report: { report_id: string; type: ReportType; from: string; to: string; generated_at: string; interval: Resolution };
  summary: Summary;
  /** Security reports only. */
  threats_over_time?: ThreatSeries;
  top_rules?: Top;
  top_attack_types?: Top;
  top_callers?: Top;
  usage_by_provider: Usage;
  /** Usage reports only. */
  usage_by_model?: Usage;
  usage_by_key?: Usage;
}

/** The finest interval that keeps a report's chart readable (at most ~50 points) and still has data. */
export function intervalFor(range: Range, now = Date.now()): Resolution {
  const span = range.to - range.from;
  if (span <= 3 * 3_600_000 && range.from >= oldestKept('minute', now)) return 'minute';
  if (span <= 2 * 86_400_000 && range.from >= oldestKept('hour', now)) return 'hour';
  return 'day';
}

/** Reads the aggregates a report of `type` needs: a dozen bucket reads, whatever the span. */
export async function buildReportData(analytics: Analytics, id: string, type: ReportType, range: Range): Promise<ReportData> {
  const interval = intervalFor(range);
  const [summary, byProvider] = await Promise.all([analytics.summary(range), analytics.usage(range, 'provider')]);
  const report = { report_id: id, type, from: summary.from, to: summary.to, generated_at: new Date().toISOString(), interval };
  if (type === 'security') {
    const [series, rules, attacks, callers] = await Promise.all([
      analytics.threats(range, interval, 'attack_type'),
      analytics.top(range, 'rule_id', 10),
      analytics.top(range, 'attack_type', 10),
      analytics.top(range, 'caller', 10),
    ]);
    return { report, summary, threats_over_time: series, top_rules: rules, top_attack_types: attacks, top_callers: callers, usage_by_provider: byProvider };
  }
  const [byModel, byKey] = await Promise.all([analytics.usage(range, 'model'), analytics.usage(range, 'key')]);
  return { report, summary, usage_by_provider: byProvider, usage_by_model: byModel, usage_by_key: byKey };
}
