import type { Lifecycle } from '../lifecycle.js';
import { ScanPool } from '../scanning/pool.js';
import type { Services } from '../services.js';
import { pluginConfigOf } from './plugin-config.js';
import { createScanRecordMetrics } from './metrics.js';
import type { ScanStore } from './record.js';
import { ScanService } from './service.js';

/**
 * Scanning in the running service: the worker pool (rule reloads announced with system_status),
 * the scan records (memory, SQLite or Redis), the one ScanService every scan goes through and the
 * `scanning` section of /status. The composition root registers the scan routes over them. A config
 * reload applies `scanning.plugins` (and security.output.link_allowlist, see plugin-config.ts) and
 * `scanning.enabled_plugins` to the pool; worker count, scan time-out and `scanning.inline_max_chars` need a restart.
 */
export async function wireScanning(opts: { services: Services; lifecycle: Lifecycle }): Promise<{ service: ScanService; store: ScanStore }> {
  const { services, lifecycle } = opts;
  const config = services.config();
  const { scanning } = config;
  const events = services.events;
  const pool = await ScanPool.create({
    rulesDir: scanning.rules_dir,
    rulesPaths: scanning.rules_paths,
    pluginDirs: scanning.plugin_dirs,
    enabledPlugins: scanning.enabled_plugins,
    pluginConfig: pluginConfigOf(config),
    workers: scanning.workers || undefined,
    inlineMaxChars: scanning.inline_max_chars,
    scanTimeoutMs: config.security.scan_timeout_ms,
    metrics: services.registry,
    watch: scanning.watch_rules,
    onReload: (r) => {
      if (!r.changed && r.ok) return;
      events.emit('system_status', {
        status: r.ok ? 'config_reloaded' : 'degraded',
        version: services.version,
        detail: r.ok ? `rules reloaded: ${r.ruleCount} rules, version ${r.rulesVersion}` : `rule reload refused, previous rules kept: ${r.error}`,
      });
    },
  });
  const limits = () => ({ maxScans: services.config().storage.max_scans, retentionDays: services.config().storage.retention_days });
  const store = services.storage.scans(limits);
  const service = new ScanService({ pool, store, events, metrics: createScanRecordMetrics(services.registry), config: services.config, instanceId: services.instanceId });

  services.statusSections.set('scanning', () => {
    const st = pool.stats();
    return {
      status: st.lastReloadError ? 'degraded' : 'ok',
      workers: st.workers,
      inline_max_chars: st.inlineMaxChars,
      inline_scans: st.inlineScans,
      prefilter: st.prefilter,
      structure: st.structure,
      queue_depth: st.queueDepth,
      utilization: st.utilization,
      rules_version: st.rulesVersion,
      rule_count: st.ruleCount,
      plugins: st.plugins.map((p) => p.name),
      last_reload_error: st.lastReloadError,
      records: store.backend,
    };
  });

  let applied = JSON.stringify([scanning.enabled_plugins, pluginConfigOf(config)]);
  lifecycle.onReload(async (next) => {
    const wanted = JSON.stringify([next.scanning.enabled_plugins, pluginConfigOf(next)]);
    if (wanted === applied) return;
    applied = wanted;
    await pool.reload({ enabledPlugins: next.scanning.enabled_plugins, pluginConfig: pluginConfigOf(next) });
  });
  lifecycle.onShutdown(() => pool.close());
  return { service, store };
}
