// The exit-code table is the one source: the README says every code in it, and the help lists
// the init's.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from 'vitest';
import { CODE_CACHE_EXIT, EXIT, HARNESS_EXIT, INIT_EXIT_HELP, SCAN_EXIT, STATUS_EXIT } from '../../../src/config/exit-codes';
import { usage } from '../../../src/config/options';

const readme = readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Exit codes'), readme.indexOf('\n## ', readme.indexOf('## Exit codes') + 1));

test("every code of the init's is a row of the README's table, and a line of the help", () => {
  const help = usage();
  for (const code of Object.values(EXIT)) {
    expect(section).toMatch(new RegExp(`^\\| ${code} \\|`, 'm'));
    expect(INIT_EXIT_HELP.map(([c]) => c)).toContain(String(code));
    expect(help).toMatch(new RegExp(`^  ${code} +\\S`, 'm'));
  }
});

test.each([
  ['sexton status', STATUS_EXIT],
  ['sexton scan', SCAN_EXIT],
  ['sexton harness', HARNESS_EXIT],
  ['sexton code-cache', CODE_CACHE_EXIT],
])('%s: every code is in its README row', (tool, codes) => {
  const row = section.split('\n').find((line) => line.startsWith(`| \`${tool}\``)) ?? '';
  for (const code of new Set(Object.values(codes))) expect(row).toMatch(new RegExp(`\\b${code} `));
});

test('bad usage is one code everywhere but status, which must avoid HEALTHCHECK\'s 2', () => {
  expect([SCAN_EXIT.usage, HARNESS_EXIT.usage, CODE_CACHE_EXIT.usage]).toEqual([EXIT.usage, EXIT.usage, EXIT.usage]);
  expect(Object.values(STATUS_EXIT)).not.toContain(2);
});
