import { expect, test } from 'vitest';
import { requireBuilt, startPid1 } from '../support/pid1';


test('sexton -- echo hi prints hi as PID 1', async () => {
  requireBuilt();
  const run = await startPid1(['--', 'echo', 'hi']);
  const result = await run.done();
  expect(result.stdout).toBe('hi\n');
  expect(result.exitCode).toBe(0);
});

// Its name is its own on every Node line (Node names its main thread `node`, `MainThread` or
// `node-MainThread`, by line): ps and /proc/1/comm say sexton.
test('sexton is PID 1, named sexton, and the parent of its child', async () => {
  const run = await startPid1(['--', 'sh', '-c', 'cat /proc/1/comm; grep PPid /proc/$$/status']);
  const result = await run.done();
  expect(result.stdout).toBe('sexton\nPPid:\t1\n');
});
