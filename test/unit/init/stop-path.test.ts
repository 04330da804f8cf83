// The start-time warnings about the stop signal's path: pure facts in, lines out.
import { describe, expect, test } from 'vitest';
import { stopPathWarnings, stopSignalWarning } from '../../../src/init/signal-policy';

const base = { isInit: false, subreaper: true, procTrusted: true, ppid: 1 };

test('PID 1 says nothing', () => {
  expect(stopPathWarnings({ ...base, isInit: true, subreaper: false, pid1Name: 'sh\n' })).toEqual([]);
});

test('started by a PID 1 that is no init: named once', () => {
  const lines = stopPathWarnings({ ...base, pid1Name: 'sh\n' });
  expect(lines).toEqual([expect.stringMatching(/^not PID 1: PID 1 here is 'sh', and a container runtime sends its stop signal to PID 1/)]);
});

test('under an init that forwards, or where /proc is not ours, or further down the tree: no such line', () => {
  for (const pid1Name of ['tini', 'dumb-init', 'catatonit', 'docker-init']) expect(stopPathWarnings({ ...base, pid1Name })).toEqual([]);
  expect(stopPathWarnings({ ...base, procTrusted: false, pid1Name: 'sh' })).toEqual([]);
  // --pid=host: the runtime's shim is the parent and signals sexton itself.
  expect(stopPathWarnings({ ...base, ppid: 4242, pid1Name: 'systemd' })).toEqual([]);
});

test('not a subreaper: the reaping line, with the parent', () => {
  expect(stopPathWarnings({ ...base, subreaper: false, ppid: 4242 })).toEqual([expect.stringMatching(/^not PID 1 and not a subreaper: .*pid 4242's init/)]);
});

describe('the stop signal the container may send instead', () => {
  const facts = { isInit: true, stopSignal: 15, stopSignalName: 'TERM', stopSignalGiven: false, program: 'node', rewrites: [] as [string, string][] };

  test('a default sexton over a Node app says nothing: nothing it sees points away from TERM', () => {
    expect(stopSignalWarning(facts)).toBeUndefined();
    expect(stopSignalWarning({ ...facts, program: '/usr/local/bin/npm', rewrites: [['HUP', 'USR2'], ['INT', '0']] })).toBeUndefined();
  });

  test('a program whose official image stops with another signal: one line naming it and the fix', () => {
    const line = stopSignalWarning({ ...facts, program: '/usr/sbin/nginx' });
    expect(line).toMatch(/^the container's stop signal cannot be seen from inside \(an image's STOPSIGNAL and a pod's lifecycle.stopSignal reach only the runtime\), and 'nginx' images stop with QUIT/);
    expect(line).toContain('if the runtime sends QUIT, sexton only forwards it (no drain, /readyz stays ready, no grace period)');
    expect(line).toMatch(/Set SEXTON_STOP_SIGNAL to the container's stop signal \(SEXTON_STOP_SIGNAL=TERM if it is TERM\)$/);
    expect(stopSignalWarning({ ...facts, program: 'postgres' })).toContain("'postgres' images stop with INT");
    expect(stopSignalWarning({ ...facts, program: 'php-fpm8.2' })).toContain("'php-fpm8.2' images stop with QUIT");
  });

  test('another signal rewritten to the stop signal: that signal is expected as a stop', () => {
    expect(stopSignalWarning({ ...facts, rewrites: [['QUIT', 'TERM']] })).toContain('QUIT is rewritten to TERM, as a stop would be: if the runtime sends QUIT');
    // The image's signal is already the stop signal: only the rewrite is left to speak of.
    const quit = { ...facts, stopSignal: 3, stopSignalName: 'QUIT', program: 'nginx' };
    expect(stopSignalWarning({ ...quit, rewrites: [['INT', 'QUIT']] })).toContain('INT is rewritten to QUIT, as a stop would be: if the runtime sends INT');
  });

  test('silent once the stop signal is chosen, when not PID 1, and without a stop sequence', () => {
    expect(stopSignalWarning({ ...facts, program: 'nginx', stopSignalGiven: true })).toBeUndefined();
    expect(stopSignalWarning({ ...facts, program: 'nginx', isInit: false })).toBeUndefined();
    expect(stopSignalWarning({ ...facts, program: 'nginx', stopSignal: 0 })).toBeUndefined();
    expect(stopSignalWarning({ ...facts, program: 'nginx', stopSignal: 3, stopSignalName: 'QUIT' })).toBeUndefined();
  });
});
