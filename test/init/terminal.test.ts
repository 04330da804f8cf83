// sexton as PID 1 on a pseudo-terminal (util-linux `script`): the child owns the terminal,
// reads what is typed, and job control stops and resumes it without wedging sexton.
import { beforeAll, expect, test } from 'vitest';
import { runInTerminal } from '../support/core';
import { requireBuilt, until } from '../support/pid1';
import { procStat } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';

beforeAll(requireBuilt);

// Says it is ready, reads one line from the terminal, echoes it, exits 3 (to see the status pass).
const INTERACTIVE = ['--', 'sh', '-c', 'echo ready; read line; echo "got:$line"; exit 3'];

async function startInteractive() {
  const term = await runInTerminal(INTERACTIVE);
  await until(() => term.screen().includes('ready'), 10_000, `"ready" on the terminal; have ${JSON.stringify(term.screen())}`);
  const child = childrenOf(term.pid1)[0];
  expect(child).toBeGreaterThan(0);
  return { term, child };
}

const state = (pid: number) => procStat(pid)?.state;

test('the child is the foreground process group and reads a line typed into the terminal', async () => {
  const { term, child } = await startInteractive();
  const stat = procStat(child);
  expect(stat?.pgrp).toBe(child);  // its own process group
  expect(stat?.tpgid).toBe(stat?.pgrp);  // which owns the terminal

  term.type('hello\n');
  const result = await term.proc;
  expect(term.screen()).toContain('got:hello');
  expect(result.exitCode).toBe(3);
});

test('TSTP sent to sexton stops the child, CONT resumes it, and sexton never stops', async () => {
  const { term, child } = await startInteractive();

  process.kill(term.pid1, 'SIGTSTP');
  await until(() => state(child) === 'T', 5000, `child stopped; state ${state(child)}`);
  expect(state(term.pid1)).not.toBe('T');

  process.kill(term.pid1, 'SIGCONT');
  await until(() => state(child) !== 'T', 5000, 'child running again');

  term.type('after-continue\n');
  const result = await term.proc;
  expect(term.screen()).toContain('got:after-continue');
  expect(result.exitCode).toBe(3);
});

test('Ctrl-Z typed into the terminal stops the child; CONT sent to sexton resumes it', async () => {
  const { term, child } = await startInteractive();

  term.type('\x1a');  // the terminal sends TSTP to its foreground group: the child's, not sexton
  await until(() => state(child) === 'T', 5000, `child stopped; state ${state(child)}`);
  expect(state(term.pid1)).not.toBe('T');

  process.kill(term.pid1, 'SIGCONT');
  await until(() => state(child) !== 'T', 5000, 'child running again');
  term.type('after-ctrl-z\n');
  const result = await term.proc;
  expect(term.screen()).toContain('got:after-ctrl-z');
  expect(result.exitCode).toBe(3);
});
