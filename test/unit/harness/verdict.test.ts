// The harness's two readings of a run, as pure policy: no namespace, no root.
import { describe, expect, test } from 'vitest';
import { assertNoZombieLeak, VERDICT_EXIT_CODES, verdictOf } from '../../../src/harness/verdict';
import type { Pid1Report } from '../../../src/harness/pid1';

function report(over: Partial<Pid1Report>): Pid1Report {
  return {
    command: ['app'], init: 'sexton', exitCode: 143, timedOut: false, durationMs: 4000, peakZombies: 0,
    zombiesBeforeStop: 0, zombiesHeldByLiveParents: 0, zombiesLeftAtExit: 0, verdict: 'clean', ran: true, namespace: 'pid',
    zombieParents: [], samples: [], stdout: '', stderr: '', ...over,
  };
}
const leakyParent = { pid: 7, command: 'zombie-1 100000', zombies: 1, oldestMs: 4000 };

describe('verdictOf', () => {
  test('each reading', () => {
    expect(verdictOf(report({}))).toBe('clean');
    expect(verdictOf(report({ zombieParents: [leakyParent] }))).toBe('app-leaks');
    expect(verdictOf(report({ zombieParents: [leakyParent], zombiesLeftAtExit: 1 }))).toBe('init-failed');
    expect(verdictOf(report({ timedOut: true }))).toBe('init-failed');
    expect(verdictOf(report({ ran: false, timedOut: true }))).toBe('not-run');
  });

  test('exit codes are distinct, and none is 2 (bad input)', () => {
    const codes = Object.values(VERDICT_EXIT_CODES);
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).not.toContain(2);
    expect(VERDICT_EXIT_CODES.clean).toBe(0);
  });
});

describe('assertNoZombieLeak', () => {
  test("scope 'pod' fails an app that leaks; scope 'init' passes it", () => {
    const r = report({ zombieParents: [leakyParent], zombiesHeldByLiveParents: 1 });
    expect(() => assertNoZombieLeak(r)).toThrow(/app leaks: pid 7 \(zombie-1 100000\) held 1 zombie\(s\) for up to 4\.0 s/);
    expect(() => assertNoZombieLeak(r, { scope: 'init' })).not.toThrow();
  });

  test('both scopes fail an init that left zombies or had to be killed', () => {
    for (const scope of ['pod', 'init'] as const) {
      expect(() => assertNoZombieLeak(report({ zombiesLeftAtExit: 3 }), { scope })).toThrow(/init failed: 3 zombie\(s\) were left when PID 1 exited/);
      expect(() => assertNoZombieLeak(report({ timedOut: true, zombiesLeftAtExit: 10 }), { scope })).toThrow(/killed, with 10 zombie\(s\) left/);
      expect(() => assertNoZombieLeak(report({ ran: false, stderr: 'unshare: EPERM' }), { scope })).toThrow(/never ran.*EPERM/);
    }
  });

  test('maxPeakZombies', () => {
    expect(() => assertNoZombieLeak(report({ peakZombies: 50 }), { maxPeakZombies: 20 })).toThrow(/50 zombies at once \(allowed 20\)/);
  });
});
