/**
 * Runs every rule's own tests (tests.match / tests.no_match) in rules/*.yaml through the
 * content harness, so a rule author's mistake fails CI even before the engine's
 * `warden rules test` runs.
 */
import { expect } from 'chai';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HarnessMatcher, loadRules } from '../scripts/detectors/content-harness.js';

const rulesDir = resolve(dirname(fileURLToPath(import.meta.url)), '../../rules');

describe('rules/*.yaml content', () => {
  const rules = loadRules(rulesDir);
  it('has unique ids, references and tests on both sides for every rule', () => {
    const seen = new Set<string>();
    for (const r of rules) {
      expect(seen.has(r.raw.id), `duplicate ${r.raw.id}`).to.equal(false);
      seen.add(r.raw.id);
      expect(r.raw.tests?.match?.length ?? 0, `${r.raw.id} match tests`).to.be.greaterThan(0);
      expect(r.raw.tests?.no_match?.length ?? 0, `${r.raw.id} no_match tests`).to.be.greaterThan(0);
    }
    expect(rules.length).to.be.greaterThan(20);
  });
  it('passes every rule test', () => {
    expect(new HarnessMatcher(rules).selfTest()).to.deep.equal([]);
  });
});
