// The README's option table and the usage text come from, or must agree with, the one table.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { expect, test } from 'vitest';
import { OPTION_TABLE } from '../../../src/config/option-table';
import { usage } from '../../../src/config/options';

const readme = readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** Rows of the table under "## Options": [flag cell, env cell]. */
function readmeRows(): [string, string][] {
  const section = readme.slice(readme.indexOf('\n## Options'), readme.indexOf('\n## ', readme.indexOf('\n## Options') + 1));
  return section.split('\n').filter((l) => l.startsWith('| `-')).map((l) => {
    const cells = l.split(/(?<!\\)\|/).map((c) => c.trim());
    return [cells[1], cells[2]];
  });
}

test('every option has a README row with its short flag and its variable, and the README has no other', () => {
  const rows = readmeRows();
  for (const o of OPTION_TABLE) {
    const row = rows.find(([flag]) => new RegExp(`--${o.long}\\b(?!-)`).test(flag));
    expect(row, `README row for --${o.long}`).toBeDefined();
    const [flag, env] = row as [string, string];
    if (o.short) expect(flag).toContain(`-${o.short},`);
    if (o.env) expect(env).toContain(o.env);
  }
  const documented = rows.map(([flag]) => /--([a-z-]+)/.exec(flag)?.[1]);
  expect(documented.filter((long) => !OPTION_TABLE.some((o) => o.long === long))).toEqual([]);
});

test('the usage text names every option and every variable', () => {
  for (const o of OPTION_TABLE) {
    expect(usage()).toContain(`--${o.long}`);
    if (o.env) expect(usage()).toContain(o.env);
  }
});
