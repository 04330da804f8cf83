// Zombie ages as sexton knows them: from the first look that saw the same pid and start time.
import { expect, test } from 'vitest';
import type { ProcessInfo } from '../../../src/platform/procfs';
import { ZOMBIE_BLAME_MS, ZombieAges } from '../../../src/init/process-tree';

const proc = (pid: number, state: string, startTime = 100): ProcessInfo => ({ pid, ppid: 5, pgid: pid, state, name: 'x', startTime, killPending: false });

test('a zombie is old once known for ZOMBIE_BLAME_MS, never at its first look', () => {
  const ages = new ZombieAges();
  const z = proc(10, 'Z');
  ages.look([proc(5, 'S'), z], 1000);
  expect(ages.isOld(z, 1000)).toBe(false);
  expect(ages.withoutYoung([proc(5, 'S'), z], 1000)).toEqual({ kept: [proc(5, 'S')], young: 1 });
  ages.look([proc(5, 'S'), z], 1000 + ZOMBIE_BLAME_MS - 1);
  expect(ages.isOld(z, 1000 + ZOMBIE_BLAME_MS - 1)).toBe(false);
  ages.look([proc(5, 'S'), z], 1000 + ZOMBIE_BLAME_MS);
  expect(ages.isOld(z, 1000 + ZOMBIE_BLAME_MS)).toBe(true);
});

test('a reaped zombie is forgotten; its pid reused by another zombie starts young', () => {
  const ages = new ZombieAges();
  ages.look([proc(10, 'Z', 100)], 0);
  ages.look([], 100);
  ages.look([proc(10, 'Z', 100)], 2000);
  expect(ages.isOld(proc(10, 'Z', 100), 2000)).toBe(false);
  ages.look([proc(10, 'Z', 300)], 5000);
  expect(ages.isOld(proc(10, 'Z', 300), 5000)).toBe(false);
  expect(ages.isOld(proc(10, 'Z', 100), 5000)).toBe(false);
});

test('a zombie never looked at is not old, whatever its start time says', () => {
  expect(new ZombieAges().isOld(proc(10, 'Z', 0), 1e9)).toBe(false);
});
