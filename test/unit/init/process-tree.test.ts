// Who already got the TERM forwarded to the main child's process group: the leftovers' TERM
// must not be a second one (a shell still in its TERM trap runs the trap again).
import { expect, test } from 'vitest';
import type { ProcessInfo } from '../../../src/platform/procfs';
import { gotGroupTerm } from '../../../src/init/process-tree';

const MAIN = 100;
/** 12.345678 s after boot: in clock tick 1234. */
const AT = 12_345_678;
const proc = (pgid: number, startTime: number): ProcessInfo =>
  ({ pid: 200, ppid: MAIN, pgid, state: 'S', name: 'x', startTime, killPending: false });

test('a member of the group started in a tick before the TERM got it', () => {
  expect(gotGroupTerm(proc(MAIN, 1233), MAIN, AT)).toBe(true);
  expect(gotGroupTerm(proc(MAIN, 0), MAIN, AT)).toBe(true);
});

test('one started in the TERM\'s own tick or later may have missed it', () => {
  expect(gotGroupTerm(proc(MAIN, 1234), MAIN, AT)).toBe(false);
  expect(gotGroupTerm(proc(MAIN, 1300), MAIN, AT)).toBe(false);
});

test('outside the group, or before any group TERM, nobody got it', () => {
  expect(gotGroupTerm(proc(MAIN + 1, 10), MAIN, AT)).toBe(false);
  expect(gotGroupTerm(proc(MAIN, 10), MAIN, 0)).toBe(false);
});
