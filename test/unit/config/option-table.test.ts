// The README's option table and the usage text come from, or must agree with, the one table.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { expect, test } from 'vitest';
import { OPTION_TABLE } from '../../../src/config/option-table';
import { parseArgs, usage } from '../../../src/config/options';

const readme = readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

/** Rows of the table under "## Options": [flag cell, env cell, default cell]. */
function readmeRows(): [string, string, string][] {
  const section = readme.slice(readme.indexOf('\n## Options'), readme.indexOf('\n## ', readme.indexOf('\n## Options') + 1));
  return section.split('\n').filter((l) => l.startsWith('| `-')).map((l) => {
    const cells = l.split(/(?<!\\)\|/).map((c) => c.trim());
    return [cells[1], cells[2], cells[3]];
  });
}

test('every option has a README row with its short flag and its variable, and the README has no other', () => {
  const rows = readmeRows();
  for (const o of OPTION_TABLE) {
    const row = rows.find(([flag]) => new RegExp(`--${o.long}\\b(?!-)`).test(flag));
    expect(row, `README row for --${o.long}`).toBeDefined();
    const [flag, env, byDefault] = row as [string, string, string];
    if (o.short) expect(flag).toContain(`-${o.short},`);
    if (o.env) expect(env).toContain(o.env);
    if (o.default !== undefined) expect(byDefault, `README default of --${o.long}`).toBe(`\`${o.default}\``);
  }
  const documented = rows.map(([flag]) => /--([a-z-]+)/.exec(flag)?.[1]);
  expect(documented.filter((long) => !OPTION_TABLE.some((o) => o.long === long))).toEqual([]);
});

test('the usage text names every option, every variable and every default', () => {
  for (const o of OPTION_TABLE) {
    expect(usage()).toContain(`--${o.long}`);
    if (o.env) expect(usage()).toContain(o.env);
    if (o.default !== undefined) expect(usage()).toContain(`(default ${o.default})`);
  }
});

test('with no flag and no variable, each option has the table\'s default', () => {
  const request = parseArgs(['true'], {});
  expect(request.kind === 'run' && request.options).toMatchObject({ stopSignal: 15, drainDelay: 0, grace: 10, readyWhen: 'started', logFormat: 'text', childOomScoreAdj: 'auto' });
});
