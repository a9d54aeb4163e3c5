import { Counter, Histogram, type Registry } from 'prom-client';
import type { Analytics, Range } from '../analytics/index.js';
import { log } from '../log.js';
import { newId } from '../util/ids.js';
import { buildReportData } from './build.js';
import { renderCsv } from './csv.js';
import { renderHtml } from './html.js';
import type { ReportFormat, ReportMeta, ReportStore, ReportType } from './store.js';

export const CONTENT_TYPES: Record<ReportFormat, string> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/** warden-security-report-20261121T0300Z-20261122T0300Z.html */
export function filenameOf(type: ReportType, range: Range, format: ReportFormat): string {
  const stamp = (t: number) => new Date(t).toISOString().slice(0, 16).replace(/[-:]/g, '') + 'Z';
  return `warden-${type}-report-${stamp(range.from)}-${stamp(range.to)}.${format}`;
}

export interface ReportMetrics {
  built: Counter<'type' | 'format' | 'status'>;
  seconds: Histogram<'type' | 'format'>;
}

export function createReportMetrics(registry: Registry): ReportMetrics {
  return {
    built: new Counter({ name: 'warden_reports_total', help: 'Reports built, by type, format and outcome (ready, failed).', labelNames: ['type', 'format', 'status'], registers: [registry] }),
    seconds: new Histogram({ name: 'warden_report_build_seconds', help: 'Time to build a report from the aggregates.', labelNames: ['type', 'format'], buckets: [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5], registers: [registry] }),
  };
}

/**
 * Accepts a report request at once (pending) and builds it in the background from the
 * analytics aggregates; the stored record moves to ready (with content) or failed (with why).
 */
export class ReportService {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: { analytics: Analytics; store: ReportStore; metrics?: ReportMetrics; instanceId: string },
  ) {}

  async request(input: { type: ReportType; format: ReportFormat; range: Range; requestedBy: string | null }): Promise<ReportMeta> {
    const meta: ReportMeta = {
      report_id: newId('rpt'),
      type: input.type,
      format: input.format,
      from: new Date(input.range.from).toISOString(),
      to: new Date(input.range.to).toISOString(),
      status: 'pending',
      created_at: new Date().toISOString(),
      completed_at: null,
      requested_by: input.requestedBy,
      error: null,
      size_bytes: null,
      filename: filenameOf(input.type, input.range, input.format),
      content_type: CONTENT_TYPES[input.format],
      instance_id: this.deps.instanceId,
    };
    await this.deps.store.save(meta);
    const job = this.build(meta, input.range).finally(() => this.inFlight.delete(job));
    this.inFlight.add(job);
    return meta;
  }

  private async build(meta: ReportMeta, range: Range): Promise<void> {
    // Yield first so that the 202 goes out before any work starts.
    await new Promise((r) => setImmediate(r));
    const end = this.deps.metrics?.seconds.startTimer({ type: meta.type, format: meta.format });
    try {
      const data = await buildReportData(this.deps.analytics, meta.report_id, meta.type, range);
      const content = meta.format === 'json' ? JSON.stringify(data, null, 2) + '\n' : meta.format === 'csv' ? renderCsv(data) : renderHtml(data);
      await this.deps.store.save({ ...meta, status: 'ready', completed_at: new Date().toISOString(), size_bytes: Buffer.byteLength(content) }, content);
      this.deps.metrics?.built.inc({ type: meta.type, format: meta.format, status: 'ready' });
    } catch (err) {
      const message = (err as Error).message;
      log.error({ err: message, report_id: meta.report_id }, 'report build failed');
      this.deps.metrics?.built.inc({ type: meta.type, format: meta.format, status: 'failed' });
      await this.deps.store.save({ ...meta, status: 'failed', completed_at: new Date().toISOString(), error: `The report could not be built: ${message}` }).catch(() => undefined);
    } finally {
      end?.();
    }
  }

  get(id: string) {
    return this.deps.store.get(id);
  }

  content(id: string) {
    return this.deps.store.content(id);
  }

  list(limit: number) {
    return this.deps.store.list(limit);
  }

  /** Waits (bounded) for reports being built, at shutdown. */
  async drain(timeoutMs = 5000): Promise<void> {
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => setTimeout(r, timeoutMs).unref())]);
  }
}
