// The start-time warnings about the stop signal's path: pure facts in, lines out.
import { expect, test } from 'vitest';
import { stopPathWarnings } from '../../../src/init/stop-path';

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
