// Who is owed no TERM because the one forwarded to the main child's process group covers it: the
// daemons' and leftovers' TERM must not be a second one (a shell still in its TERM trap runs the
// trap again), nor cut short a clean-up the app started in the group since.
import { expect, test } from 'vitest';
import type { ProcessInfo } from '../../../src/platform/procfs';
import { gotGroupTerm } from '../../../src/init/process-tree';

const MAIN = 100;
const proc = (pgid: number, startTime: number): ProcessInfo =>
  ({ pid: 200, ppid: MAIN, pgid, state: 'S', name: 'x', startTime, killPending: false });

test('once the group had its TERM, every member of it is covered, whenever it started', () => {
  expect(gotGroupTerm(proc(MAIN, 0), MAIN, true)).toBe(true);
  expect(gotGroupTerm(proc(MAIN, 999_999), MAIN, true)).toBe(true);
});

test('outside the group, or before any group TERM, nobody is covered', () => {
  expect(gotGroupTerm(proc(MAIN + 1, 10), MAIN, true)).toBe(false);
  expect(gotGroupTerm(proc(MAIN, 10), MAIN, false)).toBe(false);
});
