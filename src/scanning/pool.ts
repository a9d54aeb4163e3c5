/**
 * ScanPool: the scanning engine behind a piscina worker pool. Small texts (inlineMaxChars) are
 * scanned on the calling thread within a share of its time; everything else is queued and
 * handed to workers in small chunks, the clock watched, and hung or crashed workers turned into
 * fail-mode outcomes while piscina replaces the worker.
 *
 * Why its own queue in front of piscina: a scan's time-out must count from when the item
 * STARTS (a busy pool is not a hung plugin), and items queued together are sent together
 * (fewer thread hops under load). At most 2 tasks per worker are handed to piscina; the
 * worker reports the item and plugin it is on through a SharedArrayBuffer, so the watchdog
 * times each item from its own start and can name the plugin that hung.
 *
 * Rule reloads build a new piscina with the new rule set and swap it in; tasks already
 * running finish on the old one, which is then closed. Nothing in flight is dropped.
 *
 * This file runs the pool; each of its parts has its own: pool-types.ts (options, results,
 * errors), scan-queue.ts (the queue), watchdog.ts (a task's time-out), generation.ts (a set of
 * workers and its engine), reload.ts (the generation swap), rules-watcher.ts (the rules folder),
 * inline-budget.ts (the calling thread's share for small scans).
 */
import { EventEmitter } from 'node:events';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { log } from '../log.js';
import { BUILTIN_PLUGIN_DIR, type Engine, type EngineResult, type ScanFailure } from './engine.js';
import { InlineBudget } from './inline-budget.js';
import { retireIfIdle, startGeneration, type Generation } from './generation.js';
import { createScanMetrics, type ScanMetrics } from './metrics.js';
import { structureBackend } from './structure.js';
import type { BatchItemResult, DetectionResult, ReloadResult, ScanPoolOptions, ScanPoolStats, ScanRequest } from './pool-types.js';
import { ScanInputError, ScanPoolClosedError } from './pool-types.js';
import { loadRuleSet } from './rules/load.js';
import { reloadGeneration } from './reload.js';
import { watchRules, type RulesWatcher } from './rules-watcher.js';
import { ScanQueue, type Pending } from './scan-queue.js';
import { TARGETS } from './types.js';
import { START_GRACE_MS, TaskWatchdog } from './watchdog.js';
import type { ScanTaskItem, WorkerTask } from './worker.js';

// The pool's shapes live in pool-types.ts; importers of the pool get them here too.
export * from './pool-types.js';

/** <repo>/rules, from dist/src/scanning/pool.js. */
export const DEFAULT_RULES_DIR = fileURLToPath(new URL('../../../rules/', import.meta.url));

/** Default bound for scans on the calling thread: see docs/scanning.md ("Small scans"). On
 * the 2-core VMs of 2026-11-25 a 2 KiB scan with all plugins cost ~0.3-0.7 ms of CPU, about
 * what a round trip to a worker adds on its own (0.12-0.5 ms median, several ms at p90). */
export const INLINE_MAX_CHARS = 2048;

/** Texts this short are scanned on the calling thread even while the inline budget is closed
 * (still within inlineMaxChars, and counted in the budget): handing one to a worker costs the
 * calling thread about as much CPU as scanning it. Measured 2026-11-25 on the shared 2-core VM,
 * main-thread CPU per scan of 64-512 characters: one at a time (1 ms apart) 54-165 µs inline
 * against 132-239 µs through the pool; 32 at a time (the pool sends them in one task) 6-18 µs
 * against 6-10 µs. The proxy's answers and short chat turns are this short. */
export const ALWAYS_INLINE_CHARS = 256;

const MAX_CHUNK_ITEMS = 32;

/** What a worker (or the inline engine) is given of a request. */
function taskItem(req: ScanRequest): ScanTaskItem {
  const item: ScanTaskItem = { text: req.text, target: req.target ?? 'prompt' };
  if (req.detectors !== undefined) item.detectors = req.detectors;
  return item;
}
const MAX_CHUNK_CHARS = 64 * 1024;
const MAX_ATTEMPTS = 3;
const MAX_SPARE_PROGRESS_BUFFERS = 64;

export class ScanPool {
  private readonly opts: Required<Pick<ScanPoolOptions, 'workers' | 'scanTimeoutMs' | 'maxQueue' | 'maxInputChars' | 'inlineMaxChars' | 'inlineShare'>> & ScanPoolOptions;
  private readonly rulesDir: string;
  private readonly rulesPaths: string[];
  private readonly pluginDirs: string[];
  private readonly metrics: ScanMetrics;
  private readonly events = new EventEmitter();
  private gen: Generation;
  private readonly queue = new ScanQueue();
  private inFlightTasks = 0;
  private closed = false;
  private watcher: RulesWatcher | null = null;
  private reloading: Promise<ReloadResult> = Promise.resolve(null as unknown as ReloadResult);
  private lastReload: ReloadResult | null = null;
  private lastReloadError: string | null = null;
  private enabledPlugins: string[] | undefined;
  private pluginConfig: Record<string, Record<string, unknown>> | undefined;
  private counters = { completed: 0, timeouts: 0, crashes: 0, detectorErrors: 0, inline: 0 };
  /** The calling thread's time left for inline scans (see inlineShare). */
  private readonly inlineBudget: InlineBudget;
  /** Progress buffers of tasks that finished normally, reused by the next tasks. */
  private readonly progressBuffers: SharedArrayBuffer[] = [];
  /** A pump is already due this turn (schedulePump). */
  private pumpScheduled = false;

  private constructor(opts: ScanPool['opts'], rulesDir: string, pluginDirs: string[], gen: Generation, metrics: ScanMetrics) {
    this.opts = opts;
    this.rulesDir = rulesDir;
    this.rulesPaths = opts.rulesPaths ?? [];
    this.pluginDirs = pluginDirs;
    this.gen = gen;
    this.metrics = metrics;
    this.enabledPlugins = opts.enabledPlugins;
    this.pluginConfig = opts.pluginConfig;
    this.inlineBudget = new InlineBudget(opts.inlineShare);
  }

  /** Loads and validates the rules, starts the workers and waits until they are ready. Throws
   * RuleLoadError for bad rules and EngineConfigError (message) for bad plugin settings. */
  static async create(options: ScanPoolOptions = {}): Promise<ScanPool> {
    const opts = {
      ...options,
      workers: Math.max(1, Math.floor(options.workers ?? availableParallelism())),
      scanTimeoutMs: Math.max(1, options.scanTimeoutMs ?? 1000),
      maxQueue: Math.max(1, options.maxQueue ?? 10_000),
      maxInputChars: options.maxInputChars ?? 1 << 20,
    };
    const rulesDir = options.rulesDir ?? DEFAULT_RULES_DIR;
    const pluginDirs = [...(options.builtinPlugins === false ? [] : [BUILTIN_PLUGIN_DIR]), ...(options.pluginDirs ?? [])];
    const onlyBuiltin = pluginDirs.length === 1 && pluginDirs[0] === BUILTIN_PLUGIN_DIR;
    const inlineMaxChars = Math.max(0, Math.floor(options.inlineMaxChars ?? (onlyBuiltin ? INLINE_MAX_CHARS : 0)));
    const inlineShare = Math.min(1, Math.max(0, options.inlineShare ?? 0.25));
    const fullOpts = { ...opts, inlineMaxChars, inlineShare };
    const rules = loadRuleSet([rulesDir, ...(options.rulesPaths ?? [])]);
    const gen = await startGeneration(rules, { pluginDirs, enabledPlugins: options.enabledPlugins, pluginConfig: options.pluginConfig }, opts.workers, inlineMaxChars > 0);
    const metrics = createScanMetrics(options.metrics);
    const pool = new ScanPool(fullOpts, rulesDir, pluginDirs, gen, metrics);
    metrics.attach({
      queueDepth: () => pool.queuedItems(),
      utilization: () => pool.gen.piscina.utilization,
      workers: () => pool.gen.piscina.threads.length,
      ruleCount: () => pool.gen.describe.ruleCount,
    });
    if (options.onReload) pool.onReload(options.onReload);
    if (options.watch) pool.watcher = watchRules([rulesDir, ...pool.rulesPaths], () => void pool.reload());
    for (const e of gen.describe.loadErrors) log.warn({ plugin: e.plugin, path: e.path }, `plugin skipped: ${e.message}`);
    return pool;
  }

  /** Scans one text. Rejects with ScanInputError for bad input; every detector problem is
   * reported inside the outcome (`failures`), never as a rejection. */
  scan(req: ScanRequest): Promise<DetectionResult> {
    if (this.closed) return Promise.reject(new ScanPoolClosedError('scan pool is closed'));
    const problem = this.checkRequest(req);
    if (problem !== null) return Promise.reject(new ScanInputError(problem));
    const inline = this.gen.inline;
    const n = req.text.length;
    const item = taskItem(req);
    if (inline !== null && n <= this.opts.inlineMaxChars && (n <= ALWAYS_INLINE_CHARS || this.inlineBudget.left())) {
      return Promise.resolve(this.scanInline(inline, this.gen, item));
    }
    return this.enqueue(item);
  }

  /** Scans many texts over all workers. Results keep the request order; a bad item gets its
   * own error entry and the others are scanned. */
  async scanBatch(reqs: ScanRequest[]): Promise<BatchItemResult[]> {
    if (this.closed) throw new ScanPoolClosedError('scan pool is closed');
    if (!Array.isArray(reqs)) throw new ScanInputError('scanBatch takes an array of {text, target?}');
    return Promise.all(
      reqs.map((req): Promise<BatchItemResult> => {
        const problem = this.checkRequest(req);
        if (problem !== null) return Promise.resolve({ error: { code: 'invalid_input', message: problem } });
        return this.enqueue(taskItem(req));
      }),
    );
  }

  /** Re-reads the rules (and optionally new plugin settings); swaps them in if valid. Never
   * throws: a refused reload is a result with ok=false, and the previous set stays. */
  reload(changes: { enabledPlugins?: string[]; pluginConfig?: Record<string, Record<string, unknown>> } = {}): Promise<ReloadResult> {
    this.reloading = this.reloading.then(() => this.doReload(changes));
    return this.reloading;
  }

  /** Subscribe to reload results (file-watch triggered or explicit). Returns an unsubscribe. */
  onReload(listener: (result: ReloadResult) => void): () => void {
    this.events.on('reload', listener);
    return () => this.events.off('reload', listener);
  }

  stats(): ScanPoolStats {
    const g = this.gen;
    return {
      workers: g.piscina.threads.length,
      inlineScans: this.counters.inline,
      prefilter: g.inline?.rules.prefilterKind ?? g.describe.prefilter,
      structure: structureBackend().kind,
      inlineMaxChars: g.inline === null ? 0 : this.opts.inlineMaxChars,
      queueDepth: this.queuedItems() + g.piscina.queueSize,
      inFlight: this.inFlightTasks,
      utilization: g.piscina.utilization,
      completed: this.counters.completed,
      timeouts: this.counters.timeouts,
      crashes: this.counters.crashes,
      detectorErrors: this.counters.detectorErrors,
      rulesVersion: g.describe.rulesVersion,
      ruleCount: g.describe.ruleCount,
      rulesDir: this.rulesDir,
      rulesPaths: this.rulesPaths,
      plugins: g.describe.plugins,
      pluginLoadErrors: g.describe.loadErrors,
      lastReload: this.lastReload,
      lastReloadError: this.lastReloadError,
    };
  }

  /** Stops watching, fails queued items, waits for running tasks, stops the workers. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    while (this.queue.size > 0) {
      const p = this.queue.take();
      p.resolve(this.failedOutcome(p, { kind: 'overloaded', detector: null, message: 'scan pool closed before the item ran' }));
    }
    await this.reloading.catch(() => undefined);
    const deadline = Date.now() + this.opts.scanTimeoutMs * 2 + 1000;
    while (this.inFlightTasks > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    await this.gen.piscina.destroy();
  }

  // ---- internals -------------------------------------------------------------------------

  private checkRequest(req: ScanRequest): string | null {
    if (req === null || typeof req !== 'object') return 'each item must be an object {text, target?}';
    if (typeof req.text !== 'string') return 'text must be a string';
    if (req.text.length > this.opts.maxInputChars) return `text is ${req.text.length} characters; the limit is ${this.opts.maxInputChars}`;
    if (req.target !== undefined && !TARGETS.includes(req.target)) return `target must be one of ${TARGETS.join(', ')}`;
    if (req.detectors !== undefined && (!Array.isArray(req.detectors) || req.detectors.some((d) => typeof d !== 'string'))) return 'detectors must be an array of detector names';
    return null;
  }

  /**
   * One small scan on this thread. A detector that throws is a detector_error inside the
   * outcome, as in a worker. A scan cannot be stopped here, so one that ran past the time-out
   * (a pathological input, a plugin gone slow) gets the same `timeout` failure a worker's would
   * (fail mode applies, its findings are not used), and inline scanning is switched off for
   * this rule generation: from then on every scan goes to the workers, whose watchdog can stop it.
   */
  private scanInline(engine: Engine, gen: Generation, item: ScanTaskItem): DetectionResult {
    const started = performance.now();
    let r: EngineResult;
    try {
      r = engine.scan(item.text, item.target, undefined, item.detectors);
    } catch (err) {
      r = { threats: [], riskScore: 0, timings: {}, failures: [{ kind: 'detector_error', detector: null, message: (err as Error)?.message ?? String(err) }] };
    }
    const elapsed = performance.now() - started;
    this.inlineBudget.spend(elapsed);
    this.counters.inline++;
    const p = { item, submittedAt: started, attempts: 0, resolve: () => undefined } satisfies Pending;
    if (elapsed > this.opts.scanTimeoutMs) {
      let detector: string | null = null;
      let worst = -1;
      for (const name in r.timings) if (r.timings[name]! > worst) [worst, detector] = [r.timings[name]!, name];
      if (gen.inline === engine) gen.inline = null;
      this.counters.timeouts++;
      this.metrics.failure(detector, 'timeout');
      const message = `scan exceeded ${this.opts.scanTimeoutMs} ms${detector ? ` in detector ${detector}` : ''} on the calling thread (${Math.round(elapsed)} ms); small scans now go to the workers`;
      log.warn({ detector, kind: 'timeout', chars: item.text.length }, message);
      return this.failedOutcome(p, { kind: 'timeout', detector, message });
    }
    const outcome = r as DetectionResult;
    this.record(outcome);
    outcome.latencyMs = elapsed;
    outcome.rulesVersion = gen.describe.rulesVersion;
    return outcome;
  }

  private queuedItems(): number {
    return this.queue.size;
  }

  private enqueue(item: ScanTaskItem): Promise<DetectionResult> {
    return new Promise((resolve) => {
      const p: Pending = { item, submittedAt: performance.now(), attempts: 0, resolve };
      if (this.queuedItems() >= this.opts.maxQueue) {
        this.metrics.failure(null, 'overloaded');
        resolve(this.failedOutcome(p, { kind: 'overloaded', detector: null, message: `scan queue full (${this.opts.maxQueue} items waiting)` }));
        return;
      }
      this.queue.push(p);
      this.schedulePump();
    });
  }

  /**
   * Hands queued items to the workers once the current turn of the event loop has read all
   * the requests it has: scans submitted in the same turn (concurrent HTTP requests, a batch)
   * travel in one task instead of one hand-off each. Measured on /v1/scan at saturation: ~15 %
   * less main-thread and ~20 % less worker CPU per request; at a steady 500 req/s no change in
   * latency (setImmediate runs within the same turn). Finished tasks pump at once (finally).
   */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private requeueFront(items: Pending[]): void {
    if (this.closed) {
      for (const p of items) p.resolve(this.failedOutcome(p, { kind: 'overloaded', detector: null, message: 'scan pool closed before the item ran' }));
      return;
    }
    this.queue.putFront(items);
  }

  private pump(): void {
    const limit = this.opts.workers * 2;
    while (this.inFlightTasks < limit && this.queue.size > 0) {
      const chunk: Pending[] = [];
      let chars = 0;
      while (this.queue.size > 0 && chunk.length < MAX_CHUNK_ITEMS) {
        const next = this.queue.peek();
        if (chunk.length > 0 && chars + next.item.text.length > MAX_CHUNK_CHARS) break;
        chunk.push(this.queue.take());
        chars += next.item.text.length;
      }
      this.queue.compact();
      this.runChunk(chunk);
    }
  }

  private runChunk(chunk: Pending[]): void {
    const gen = this.gen;
    gen.inFlight++;
    this.inFlightTasks++;
    const progress = this.progressBuffers.pop() ?? new SharedArrayBuffer(16);
    const slots = new Int32Array(progress);
    slots[0] = -1;
    slots[1] = -1;
    slots[2] = 0;
    const sentAt = Date.now();
    const watchdog = new TaskWatchdog(slots, sentAt, this.opts.scanTimeoutMs);
    const task: WorkerTask = { kind: 'scan', items: chunk.map((p) => p.item), progress, sentAt };
    gen.piscina
      .run(task, { signal: watchdog.abort })
      .then(
        (reply) => {
          watchdog.stop();
          // The worker finished with the buffer: the next task may have it.
          if (this.progressBuffers.length < MAX_SPARE_PROGRESS_BUFFERS) this.progressBuffers.push(progress);
          if (reply.kind !== 'scan' || reply.results.length !== chunk.length) throw new Error('worker returned a malformed reply');
          gen.describe.prefilter = reply.prefilter;
          for (let i = 0; i < chunk.length; i++) this.deliver(chunk[i]!, reply.results[i]!, gen);
        },
        (err: unknown) => {
          // Not recycled: a worker being terminated may still write into it.
          watchdog.stop();
          this.onTaskFailure(chunk, slots, gen, watchdog.timedOut, err);
        },
      )
      .catch((err: unknown) => {
        log.error({ err }, 'scan pool: failed to deliver results');
        for (const p of chunk) p.resolve(this.failedOutcome(p, { kind: 'worker_crash', detector: null, message: 'internal error delivering scan results' }));
      })
      .finally(() => {
        gen.inFlight--;
        this.inFlightTasks--;
        retireIfIdle(gen);
        this.pump();
      });
  }

  private onTaskFailure(chunk: Pending[], slots: Int32Array, gen: Generation, timedOut: boolean, err: unknown): void {
    const at = Atomics.load(slots, 0);
    const pluginIndex = Atomics.load(slots, 1);
    const detector = at >= 0 && pluginIndex >= 0 ? (gen.describe.plugins[pluginIndex]?.name ?? null) : null;
    const kind = timedOut ? 'timeout' : 'worker_crash';
    if (timedOut) this.counters.timeouts++;
    else this.counters.crashes++;
    const reason = timedOut
      ? at >= 0
        ? `scan exceeded ${this.opts.scanTimeoutMs} ms${detector ? ` in detector ${detector}` : ''}; worker terminated`
        : `no worker started the scan within ${START_GRACE_MS + this.opts.scanTimeoutMs} ms`
      : `scan worker crashed${detector ? ` in detector ${detector}` : ''}: ${(err as Error)?.message ?? String(err)}`;
    log.warn({ detector, kind }, reason);
    this.metrics.failure(detector, kind);
    // The culprit item gets the fail-mode outcome. Items of the same chunk whose results died
    // with the worker are scanned again (bounded), so one bad input does not fail its neighbours.
    // A crash culprit gets one more try first: a worker can also die from an error an EARLIER
    // task left behind (a timer, a stray promise), and then this item is innocent. A hang is
    // not retried (it would cost another full time-out).
    const culprit = at >= 0 ? at : -1;
    const retry: Pending[] = [];
    chunk.forEach((p, i) => {
      if (i === culprit || (culprit < 0 && chunk.length === 1)) {
        if (!timedOut && !p.crashRetried) {
          p.crashRetried = true;
          retry.push(p);
          return;
        }
        p.resolve(this.failedOutcome(p, { kind, detector, message: reason }));
        return;
      }
      p.attempts++;
      if (p.attempts >= MAX_ATTEMPTS) p.resolve(this.failedOutcome(p, { kind, detector: null, message: `gave up after ${p.attempts} worker failures: ${reason}` }));
      else retry.push(p);
    });
    if (retry.length > 0) this.requeueFront(retry);
  }

  private deliver(p: Pending, r: EngineResult, gen: Generation): void {
    this.record(r);
    // r was cloned out of the worker's reply and is ours alone: complete it in place.
    const outcome = r as DetectionResult;
    outcome.latencyMs = performance.now() - p.submittedAt;
    outcome.rulesVersion = gen.describe.rulesVersion;
    p.resolve(outcome);
  }

  /** Counters and metrics of one finished scan. */
  private record(r: EngineResult): void {
    this.counters.completed++;
    for (const name in r.timings) this.metrics.observeDetector(name, r.timings[name]!);
    for (const f of r.failures) {
      this.counters.detectorErrors++;
      this.metrics.failure(f.detector, f.kind);
    }
    if (r.outcomes) for (const o of r.outcomes) this.metrics.outcome(o.detector, o.outcome);
  }

  private failedOutcome(p: Pending, failure: ScanFailure): DetectionResult {
    return {
      threats: [],
      riskScore: 0,
      timings: {},
      failures: [failure],
      latencyMs: performance.now() - p.submittedAt,
      rulesVersion: this.gen.describe.rulesVersion,
    };
  }

  private async doReload(changes: { enabledPlugins?: string[]; pluginConfig?: Record<string, Record<string, unknown>> }): Promise<ReloadResult> {
    const result = await reloadGeneration(this.gen, changes, {
      rulesDir: [this.rulesDir, ...this.rulesPaths],
      pluginDirs: this.pluginDirs,
      enabledPlugins: this.enabledPlugins,
      pluginConfig: this.pluginConfig,
      workers: this.opts.workers,
      inline: this.opts.inlineMaxChars > 0,
      closed: () => this.closed,
      swap: (next, settings) => {
        this.gen = next;
        this.enabledPlugins = settings.enabledPlugins;
        this.pluginConfig = settings.pluginConfig;
      },
    });
    this.lastReload = result;
    if (!result.ok) {
      this.lastReloadError = result.error ?? 'unknown error';
      log.warn({ rulesDir: this.rulesDir }, `rule reload refused, keeping version ${result.rulesVersion}: ${result.error}`);
    } else {
      this.lastReloadError = null;
      if (result.changed) log.info({ version: result.rulesVersion, rules: result.ruleCount }, 'rule set reloaded');
    }
    this.metrics.reload(result.ok);
    this.events.emit('reload', result);
    return result;
  }
}
