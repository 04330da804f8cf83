// The start-time warning when sexton is not the process the runtime's stop signal reaches: a
// real PID namespace whose PID 1 is a shell that runs sexton without exec (the signal stops at
// the shell), against one whose PID 1 is tini (which forwards it), and sexton as PID 1 itself.
import { beforeAll, expect, test } from 'vitest';
import { requireBuilt, requireTini, startPid1, SEXTON, TINI } from '../support/pid1';

beforeAll(() => {
  requireBuilt();
  requireTini();
});

const warning = /not PID 1: PID 1 here is '(\S+)', and a container runtime sends its stop signal to PID 1/g;

test("started by a shell as PID 1: warned once, naming it; under tini or as PID 1: not", async () => {
  const underShell = await (await startPid1(['sh', '-c', `"${process.execPath}" "${SEXTON}" --subreaper -- true; exit 0`], { raw: true })).done();
  expect(underShell.exitCode, underShell.stderr).toBe(0);
  expect([...underShell.stderr.matchAll(warning)].map((m) => m[1])).toEqual(['sh']);

  const underTini = await (await startPid1([TINI, '--', process.execPath, SEXTON, '--subreaper', '--', 'true'], { raw: true })).done();
  expect(underTini.exitCode, underTini.stderr).toBe(0);
  expect(underTini.stderr).not.toMatch(warning);
  expect(underTini.stderr).not.toMatch(/not a subreaper/);

  const asPid1 = await (await startPid1(['--', 'true'])).done();
  expect(asPid1.exitCode, asPid1.stderr).toBe(0);
  expect(asPid1.stderr).not.toMatch(/not PID 1/);
});
