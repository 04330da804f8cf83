// Paths sexton cannot use are refused before the child starts: a status socket too long for a
// unix socket, a socket or stats file in a directory that is missing or read-only. sexton runs
// as PID 1 of a fresh PID namespace; the child would print 'ran', and never does.
import { existsSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { freshDir, removeDirs } from '../support/observability';

beforeAll(requireBuilt);
afterEach(removeDirs);

const CHILD = ['--', 'sh', '-c', 'echo ran; exec sleep 30'];
const HINT = "Try 'sexton --help' for usage.";

/** Runs sexton as PID 1 and expects it to refuse in one line matching `reason`, exit 2, no child. */
async function refused(args: string[], reason: RegExp, env: Record<string, string> = {}, readOnlyDir?: string) {
  const argv = [process.execPath, SEXTON, ...args, ...CHILD];
  const run = readOnlyDir
    // The directory made read-only in PID 1's own mount namespace: bound onto itself, remounted ro.
    ? await startPid1(['/bin/sh', '-c', `mount --bind ${readOnlyDir} ${readOnlyDir} && mount -o remount,bind,ro ${readOnlyDir} && exec "$@"`, 'sh', ...argv], { raw: true, env })
    : await startPid1([...args, ...CHILD], { env });
  const done = await run.done();
  expect(done.exitCode, done.stderr).toBe(2);
  expect(done.stdout).not.toContain('ran');
  expect(done.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(reason), HINT]);
  expect(done.stderr).not.toMatch(/internal error|ENAMETOOLONG|at .*\.js/);
}

describe('the status socket', () => {
  it('a 250-byte SEXTON_STATUS_SOCKET: refused before the child starts, in one line, exit 2', async () => {
    const long = path.join(freshDir(), 'x'.repeat(200));
    expect(Buffer.byteLength(long)).toBeGreaterThan(107);
    await refused([], /^sexton: status-socket '.*: \d+ bytes long; a unix socket's path holds at most 107 \(--status-socket none turns it off\)$/,
      { SEXTON_STATUS_SOCKET: long });
  }, 20_000);

  it('an abstract name too long: refused the same way', async () => {
    await refused(['--status-socket', `@${'n'.repeat(108)}`], /^sexton: status-socket '@n+'…\(\d+ more\): 108 bytes long;/);
  }, 20_000);

  it('in a directory that does not exist: refused', async () => {
    const dir = path.join(freshDir(), 'missing');
    await refused(['--status-socket', `${dir}/s.sock`], /^sexton: status-socket '.*\/missing\/s\.sock': its directory '.*\/missing' does not exist/);
  }, 20_000);

  it('in a read-only directory: refused', async () => {
    const dir = freshDir();
    await refused(['--status-socket', `${dir}/s.sock`], /its directory '.*' is on a read-only file system \(--status-socket none/, {}, dir);
  }, 20_000);

  it('a path of exactly 107 bytes is taken, and answers', async () => {
    const dir = freshDir();
    const socket = path.join(dir, 's'.repeat(107 - dir.length - 1));
    expect(Buffer.byteLength(socket)).toBe(107);
    const run = await startPid1(['--status-socket', socket, ...CHILD]);
    await run.waitFor('ran');
    await until(() => existsSync(socket), 5000, 'the 107-byte socket');
    run.signal('SIGTERM');
    const done = await run.done();
    expect(done.exitCode).toBe(143);
    expect(done.stderr).not.toMatch(/status socket|internal error/);
  }, 20_000);
});

describe('the stats file', () => {
  it('in a directory that does not exist: refused', async () => {
    await refused(['--stats-file', '/nonexistent-sexton-dir/stats.json'], /^sexton: stats-file '\/nonexistent-sexton-dir\/stats\.json': its directory '\/nonexistent-sexton-dir' does not exist$/);
  }, 20_000);

  it('in a read-only directory: refused', async () => {
    const dir = freshDir();
    mkdirSync(path.join(dir, 'sub'));
    await refused(['--stats-file', `${dir}/stats.json`], /^sexton: stats-file '.*stats\.json': its directory '.*' is on a read-only file system$/, {}, dir);
  }, 20_000);

  it('a name too long for its temporary copy: refused', async () => {
    const file = path.join(freshDir(), `${'n'.repeat(250)}.json`);
    await refused(['--stats-file', file], /^sexton: stats-file '.*: its name is \d+ bytes long with sexton's temporary suffix; a name holds at most 255$/);
  }, 20_000);

  it('a directory: refused', async () => {
    await refused(['--stats-file', freshDir()], /^sexton: stats-file '.*': it is a directory$/);
  }, 20_000);
});
