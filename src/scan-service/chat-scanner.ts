import type { ChatScanner } from '../ports.js';
import type { ScanService } from './service.js';

/**
 * The chat proxy scans through the same service as /v1/scan, so its records, metrics and
 * threat_detected events are the same. A streamed output's intermediate windows are recorded
 * only when they found something; the final verdict is always recorded. The proxy waits for a
 * record only when it has threats (a block names its scan ids); clean ones are stored behind it.
 */
export function chatScannerOf(service: ScanService): ChatScanner {
  return {
    async scan(text, target, ctx) {
      const record = await service.scan(
        ctx.locate ? { messages: [{ text, target, locate: ctx.locate }] } : { text, target },
        { requestId: ctx.requestId, caller: ctx.caller, provider: ctx.provider, model: ctx.model, policy: ctx.policy, route: ctx.route },
        { record: ctx.partial ? 'if_threats' : true, awaitRecord: 'if_threats', ...(ctx.supplied ? { supplied: ctx.supplied } : {}), ...(ctx.findings?.length ? { findings: ctx.findings } : {}) },
      );
      const parts = service.redactionsOf(record);
      if (parts.length === 0) return { scan_id: record.scan_id, verdict: record.verdict, threats: record.threats };
      // One part (the text given): each redacted span's value, for the proxy's placeholders.
      const redactions = parts[0]!.spans.map((s) => ({ kind: s.kind, value: text.slice(s.start, s.end) }));
      return { scan_id: record.scan_id, verdict: record.verdict, threats: record.threats, redactions };
    },
    async record(findings, text, target, ctx) {
      const threats = findings.map((f) => ({ attackType: f.attack_type, severity: f.severity, confidence: f.confidence, ruleId: f.rule_id, detector: f.detector, message: f.message, spans: [], evidence: f.evidence }));
      const record = await service.recordFindings(text, target, threats, { requestId: ctx.requestId, caller: ctx.caller, provider: ctx.provider, model: ctx.model, policy: ctx.policy, route: ctx.route });
      return { scan_id: record.scan_id, verdict: record.verdict, threats: record.threats };
    },
  };
}
