import { Counter, type Registry } from 'prom-client';

export interface ScanRecordMetrics {
  scans: Counter<'source' | 'verdict'>;
  threats: Counter<'attack_type' | 'severity' | 'action'>;
  /** Scans by the policy that decided them (name and version) and verdict. */
  policyScans?: Counter<'policy' | 'policy_version' | 'verdict'>;
}

export function createScanRecordMetrics(registry: Registry): ScanRecordMetrics {
  return {
    scans: new Counter({ name: 'warden_scans_total', help: 'Scans by source and verdict.', labelNames: ['source', 'verdict'], registers: [registry] }),
    threats: new Counter({
      name: 'warden_threats_total',
      help: 'Threats by attack type, severity and the action taken.',
      labelNames: ['attack_type', 'severity', 'action'],
      registers: [registry],
    }),
    policyScans: new Counter({
      name: 'warden_policy_scans_total',
      help: 'Scans by the policy that decided them (name and version) and verdict.',
      labelNames: ['policy', 'policy_version', 'verdict'],
      registers: [registry],
    }),
  };
}
