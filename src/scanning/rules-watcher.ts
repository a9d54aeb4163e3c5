/** Watches the rules folder and calls back once a burst of changes has settled (src/scanning/pool.ts reloads then). */
import { watch, type FSWatcher } from 'node:fs';
import { log } from '../log.js';

/** Editors write in bursts (temp file, rename): one call per burst, this long after its last change. */
const SETTLE_MS = 150;

export interface RulesWatcher {
  close(): void;
}

/** Watches each of the rule directories (the shipped one and `scanning.rules_paths`); one callback per burst across all of them. */
export function watchRules(rulesDirs: string | readonly string[], onChange: () => void): RulesWatcher {
  const watchers: FSWatcher[] = [];
  let timer: NodeJS.Timeout | null = null;
  for (const rulesDir of typeof rulesDirs === 'string' ? [rulesDirs] : rulesDirs) {
    try {
      const watcher = watch(rulesDir, () => {
        // Editors write in bursts (temp file, rename): reload once things settle.
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = null;
          onChange();
        }, SETTLE_MS);
      });
      watcher.on('error', (err) => log.warn({ err: err.message, rulesDir }, 'rules watcher failed'));
      watchers.push(watcher);
    } catch (err) {
      log.warn({ err: (err as Error).message, rulesDir }, 'cannot watch rules directory');
    }
  }
  return {
    close() {
      for (const w of watchers) w.close();
      if (timer) clearTimeout(timer);
    },
  };
}
