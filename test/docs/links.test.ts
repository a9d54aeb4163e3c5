import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { expect } from 'chai';
import { PROJECT_ROOT } from '../../src/version.js';

/** Every relative Markdown link in README.md and docs/ reaches a file, and its #anchor a heading (issue 27, item 8: the lab move keeps links working). */
describe('documentation links', () => {
  const pages = [join(PROJECT_ROOT, 'README.md'), ...walk(join(PROJECT_ROOT, 'docs'))];
  /** GitHub's heading anchors: lower case, punctuation other than - and _ dropped, spaces to -. */
  const slug = (h: string) => h.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
  const anchors = (file: string) => new Set([...readFileSync(file, 'utf8').matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ''))));

  it('README.md and docs/**/*.md link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target) || target.startsWith('#') && target.length === 1) continue;
        const [path, anchor] = target.split('#');
        const file = path ? resolve(dirname(page), path) : page;
        if (!existsSync(file)) broken.push(`${relative(PROJECT_ROOT, page)}: ${target} (no such file)`);
        else if (anchor && file.endsWith('.md') && !anchors(file).has(anchor)) broken.push(`${relative(PROJECT_ROOT, page)}: ${target} (no such heading)`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('the lab notebooks are linked from the user pages', () => {
    const detectors = readFileSync(join(PROJECT_ROOT, 'docs', 'detectors.md'), 'utf8');
    const scanning = readFileSync(join(PROJECT_ROOT, 'docs', 'scanning.md'), 'utf8');
    expect(detectors).to.include('](lab/detectors-notebook.md)');
    expect(scanning).to.include('](lab/scanning-performance.md)');
    expect(detectors.split('\n').length, 'detectors.md stays a user page').to.be.below(400);
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : []));
}
