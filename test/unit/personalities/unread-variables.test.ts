// Under tini or dumb-init, a variable of sexton's that the personality does not read is said in
// one line, never silently ignored; which are read comes from the option table.
import { expect, test } from 'vitest';
import { EXTRAS, unreadVariables } from '../../../src/personalities/common';
import { OPTION_TABLE } from '../../../src/config/option-table';

test("the extras a personality reads are the option table's, each with its variable", () => {
  expect(EXTRAS).toEqual(OPTION_TABLE.filter((o) => o.peers === 'variable').map((o) => o.env));
  expect(EXTRAS).toContain('SEXTON_GRACE');
  expect(EXTRAS).not.toContain('SEXTON_HEALTH');
});

test('variables set but not read are named in one line; read ones are not', () => {
  expect(unreadVariables('tini', { SEXTON_GRACE: '3', PATH: '/bin' })).toBeUndefined();
  const line = unreadVariables('dumb-init', { SEXTON_HEALTH: ':9000', SEXTON_READY_WHEN: 'notify', SEXTON_VERBOSE: '2' }) ?? '';
  expect(line).toBe('not read as dumb-init: SEXTON_VERBOSE (dumb-init has its own flag), SEXTON_HEALTH, SEXTON_READY_WHEN; run as sexton for them');
  expect(line).not.toContain('\n');
});
