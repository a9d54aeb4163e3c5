import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../src/version.js';

/** The storage modules import each other in one direction only: the port types live in src/storage/types.ts. */
describe('src/storage has no import cycle', () => {
  const root = join(PROJECT_ROOT, 'src', 'storage');
  const files = (dir: string): string[] => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []));
  const graph = new Map<string, string[]>();
  for (const f of files(root)) {
    const deps = [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)[^'"]*from\s+'(\.[^']+)\.js';/gm)].map((m) => resolve(dirname(f), `${m[1]}.ts`)).filter((d) => d.startsWith(root));
    graph.set(f, deps);
  }

  it('index.ts and sqlite/index.ts do not import each other; both take Storage/ScanLimits from types.ts', () => {
    const index = join(root, 'index.ts');
    const sqlite = join(root, 'sqlite', 'index.ts');
    expect(graph.get(sqlite)).to.not.include(index);
    expect(graph.get(sqlite)).to.include(join(root, 'types.ts'));
    expect(graph.get(index)).to.include(join(root, 'types.ts'));
  });

  it('no module reaches itself through its imports', () => {
    const cycles: string[] = [];
    const walk = (start: string, at: string, path: string[], seen: Set<string>) => {
      for (const next of graph.get(at) ?? []) {
        if (next === start) cycles.push([...path, next].map((p) => relative(root, p)).join(' -> '));
        else if (!seen.has(next)) {
          seen.add(next);
          walk(start, next, [...path, next], seen);
        }
      }
    };
    for (const f of graph.keys()) walk(f, f, [f], new Set([f]));
    expect(cycles).to.deep.equal([]);
  });
});
