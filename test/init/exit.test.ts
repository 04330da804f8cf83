// Exit statuses, stdio passed through to the child, and the command line: sexton as PID 1.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { requireBuilt, startPid1, type RunOptions } from '../support/pid1';

beforeAll(requireBuilt);

const scratch = mkdtempSync(path.join(tmpdir(), 'sexton-exit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function sexton(args: string[], options: RunOptions = {}) {
  const run = await startPid1(args, { timeoutMs: 15_000, ...options });
  return run.done();
}

test.each([
  ['exits 0', 'exit 0', 0],
  ['exits 7', 'exit 7', 7],
  ['kills itself with KILL', 'kill -KILL $$', 137],
  ['kills itself with TERM', 'kill -TERM $$', 143],
])('a child that %s: sexton exits %i', async (_what, script, code) => {
  const result = await sexton(['--', 'sh', '-c', script]);
  expect(result.exitCode, result.stderr).toBe(code);
});

test('a command that does not exist: 127 and a message on stderr', async () => {
  const result = await sexton(['--', 'sexton-no-such-command']);
  expect(result.exitCode).toBe(127);
  expect(result.stderr).toMatch(/^sexton: .*sexton-no-such-command.*not found/m);
  expect(result.stdout).toBe('');
});

test('a file without the execute bit: 126 and a message on stderr', async () => {
  const file = path.join(scratch, 'not-executable');
  writeFileSync(file, '#!/bin/sh\necho ran\n', { mode: 0o644 });
  const result = await sexton(['--', file]);
  expect(result.exitCode).toBe(126);
  expect(result.stderr).toMatch(/^sexton: .*not-executable.*permission denied/m);
  expect(result.stdout).toBe('');
});

test('-e 143 and SEXTON_REMAP_EXIT=143 report a TERM death as 0, and only that code', async () => {
  expect((await sexton(['-e', '143', '--', 'sh', '-c', 'kill -TERM $$'])).exitCode).toBe(0);
  expect((await sexton(['--', 'sh', '-c', 'kill -TERM $$'], { env: { SEXTON_REMAP_EXIT: '143' } })).exitCode).toBe(0);
  expect((await sexton(['-e', '143', '--', 'sh', '-c', 'exit 7'])).exitCode).toBe(7);
});

test('sexton -- echo hi prints hi, and sexton writes nothing to stdout even with -vv', async () => {
  expect((await sexton(['--', 'echo', 'hi'])).stdout).toBe('hi\n');
  const verbose = await sexton(['-vv', '--', 'echo', 'hi']);
  expect(verbose.stdout).toBe('hi\n');
  expect(verbose.stderr).toMatch(/^sexton: /m);  // it did log: on stderr
});

test('the child reads stdin', async () => {
  const result = await sexton(['--', 'sh', '-c', 'read a; read b; echo "got:$a,$b"'], { input: 'one\ntwo\n' });
  expect(result.stdout).toBe('got:one,two\n');
  expect(result.exitCode).toBe(0);
});

test.each([
  ['an unknown option', ['--bogus', 'true'], {}, /unknown option '--bogus'/],
  ['no command', ['-v'], {}, /no command/],
  ['a bad signal name', ['-r', 'FOO:TERM', 'true'], {}, /FOO/],
  ['a bad signal number', ['-r', '99:TERM', 'true'], {}, /99/],
  ['a bad env value', ['true'], { SEXTON_GRACE: 'abc' }, /abc/],
])('%s: exit 2, one line and a usage hint, no stack trace', async (_what, args, env, reason) => {
  const result = await sexton(args, { env });
  expect(result.exitCode).toBe(2);
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(2);
  expect(lines[0]).toMatch(/^sexton: /);
  expect(lines[0]).toMatch(reason);
  expect(lines[1]).toMatch(/--help/);
  expect(result.stdout).toBe('');
});

test('option parsing stops at the first non-option word', async () => {
  const result = await sexton(['sh', '-c', 'echo "$0 $1"', '--port', '3']);
  expect(result.stdout).toBe('--port 3\n');
  expect(result.exitCode).toBe(0);
});

test('-- ends the options: words after it that look like options go to the child', async () => {
  const result = await sexton(['-q', '--', 'echo', '-v', '--bogus']);
  expect(result.stdout).toBe('-v --bogus\n');
  expect(result.stderr).toBe('');
});

test('flags win over the environment', async () => {
  const envVerbose = { SEXTON_VERBOSE: '2' };
  // The env alone makes sexton talk, so silence below comes from the flag.
  expect((await sexton(['--', 'true'], { env: envVerbose })).stderr).toMatch(/^sexton: started/m);
  expect((await sexton(['-q', '--', 'true'], { env: envVerbose })).stderr).toBe('');

  const envQuiet = { SEXTON_QUIET: '1' };
  expect((await sexton(['--', 'true'], { env: envQuiet })).stderr).toBe('');
  expect((await sexton(['-v', '--', 'true'], { env: envQuiet })).stderr).toMatch(/^sexton: started/m);
});
