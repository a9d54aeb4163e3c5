import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { runCli } from '../../harness/warden.js';
import { tempDir } from '../support/scanning.js';

/** `warden rules lint` lets RE2 judge every pattern, schema errors or not, and points at the construct (issue 27, item 1). */
describe('warden rules lint: every construct RE2 cannot run, with file:line:col', function () {
  this.timeout(60_000);
  const t = tempDir('warden-lint-');
  after(() => t.cleanup());

  it('reports a look-ahead even in a rule with a schema error, at the column of "(?="', async () => {
    const dir = join(t.dir, 'mine');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'mine.yaml'),
      [
        '- id: my.secret',
        '  title: Secret',
        '  attack_type: prompt_injection',
        '  severity: extreme',
        '  confidence: 0.9',
        '  targets: [prompt]',
        '  patterns:',
        "    - 'password(?=secret)'",
        '    - (\\w+) again \\1',
        '    - a++b',
      ].join('\n') + '\n',
    );
    const r = await runCli(['rules', 'lint', dir]);
    expect(r.code).to.equal(1);
    const file = join(dir, 'mine.yaml');
    expect(r.stderr).to.include(`${file}:4:13: rule "my.secret": severity must be equal to one of the allowed values`);
    expect(r.stderr).to.include(`${file}:8:16: rule "my.secret": pattern "password(?=secret)": RE2 cannot compile it: invalid perl operator: (?= (RE2 has no look-ahead or look-behind`);
    expect(r.stderr).to.match(new RegExp(`mine\\.yaml:9:\\d+: rule "my\\.secret": pattern .*invalid escape sequence: \\\\1 \\(RE2 has no backreferences\\)`));
    expect(r.stderr).to.match(/mine\.yaml:10:\d+: rule "my\.secret": pattern "a\+\+b": RE2 cannot compile it: bad repetition operator: \+\+/);
    expect(r.stderr).to.include('4 problem(s)');
  });
});
