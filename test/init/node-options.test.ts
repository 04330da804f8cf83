import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES, startPid1, SEXTON, sextonArgv } from '../support/pid1';


test('a NODE_OPTIONS preload meant for the app does not stay inside PID 1, and the child gets NODE_OPTIONS unchanged', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-node-options-'));
  try {
    const log = path.join(dir, 'preload.log');
    const nodeOptions = `--require ${path.join(FIXTURES, 'node-options-preload.cjs')} --max-old-space-size=200`;
    const run = await startPid1(
      ['--', 'node', '-e', 'console.log(JSON.stringify({ opts: process.env.NODE_OPTIONS, leaked: process.env.SEXTON_APP_NODE_OPTIONS ?? null })); setTimeout(() => {}, 600)'],
      { env: { NODE_OPTIONS: nodeOptions, PRELOAD_LOG: log } },
    );
    const result = await run.done();
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ opts: nodeOptions, leaked: null });
    // Node runs preloads before sexton's code, so it loads once in PID 1; after sexton
    // re-executes itself it is gone from PID 1 (no ticks there), while the app keeps it.
    const lines = readFileSync(log, 'utf8').trim().split('\n');
    expect(lines.filter((line) => line === '1 loaded')).toHaveLength(1);
    expect(lines.filter((line) => line === '1 tick')).toEqual([]);
    const appTicks = lines.filter((line) => line.endsWith(' tick') && !line.startsWith('1 '));
    expect(appTicks.length).toBeGreaterThan(3);
    // The re-executed sexton is still PID 1 and still sexton.
    expect(result.stderr).not.toMatch(/could not be shed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('plain NODE_OPTIONS (no preload) needs no re-exec and reaches the child', async () => {
  // /proc/1/environ is the environment PID 1 was last exec'd with: a re-exec would have moved
  // NODE_OPTIONS aside into SEXTON_APP_NODE_OPTIONS.
  const run = await startPid1(['--', 'sh', '-c', 'echo "$NODE_OPTIONS"; tr "\\0" "\\n" < /proc/1/environ | grep NODE_OPTIONS'], {
    env: { NODE_OPTIONS: '--max-old-space-size=200' },
  });
  const result = await run.done();
  expect(result.stdout).toBe('--max-old-space-size=200\nNODE_OPTIONS=--max-old-space-size=200\n');
  expect(result.exitCode).toBe(0);
});

test('the re-exec that sheds a preload keeps argument and environment bytes that are not UTF-8', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-node-options-'));
  try {
    const nodeOptions = `--require ${path.join(FIXTURES, 'node-options-preload.cjs')}`;
    // The shell makes the bytes (caf\351, Latin-1): Node's own spawn would pass only UTF-8.
    const script = `LATIN="$(printf 'caf\\351')" exec "$@" "$(printf 'caf\\351')"`;
    const run = await startPid1(
      ['/bin/sh', '-c', script, 'sh', ...sextonArgv(['--', 'sh', '-c', 'printf "%s|%s" "$LATIN" "$1" | od -An -tx1', 'child'])],
      { raw: true, env: { NODE_OPTIONS: nodeOptions, PRELOAD_LOG: path.join(dir, 'preload.log') } },
    );
    const result = await run.done();
    expect(result.exitCode, result.stderr).toBe(0);
    // "café|café" with é as the one byte e9, both through the environment and argv.
    expect(result.stdout.trim().split(/\s+/)).toEqual(['63', '61', '66', 'e9', '7c', '63', '61', '66', 'e9']);
    expect(readFileSync(path.join(dir, 'preload.log'), 'utf8')).toMatch(/^1 loaded$/m);  // it did re-exec
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Started by the `sexton` command (dist/sexton.js run as a program, as npm's bin
// link and `ENTRYPOINT ["sexton", "--"]` run it), Node never reads the app's NODE_OPTIONS in PID 1:
// the file's shell line moves it aside before it execs node. Side by side with tini, which no
// NODE_OPTIONS can touch: the same exit status, the same NODE_OPTIONS in the child, no preload in PID 1.
describe('NODE_OPTIONS never changes PID 1 started by the sexton command (side by side with tini)', () => {
  const preload = path.join(FIXTURES, 'node-options-preload.cjs');
  const cases = [
    { name: 'a missing preload', options: '--require /sexton-smallmem-missing.js --max-old-space-size=200', appIsNode: false },
    { name: 'a flag this node lacks', options: '--sexton-no-such-flag', appIsNode: false },
    { name: 'a preload meant for the app', options: `--require ${preload}`, appIsNode: true },
  ];
  const inits = [
    { name: 'sexton', argv: (command: string[]) => [SEXTON, '--status-socket', 'none', '--', ...command] },
    { name: 'tini', argv: (command: string[]) => ['/usr/bin/tini', '--', ...command] },
  ];
  for (const c of cases) {
    for (const init of inits) {
      test(`${c.name} (${init.name}): exit status the child's, NODE_OPTIONS unchanged in the child, no preload in PID 1`, async () => {
        const dir = mkdtempSync(path.join(tmpdir(), 'sexton-smallmem-node-options-'));
        try {
          const log = path.join(dir, 'preload.log');
          // The child reports the NODE_OPTIONS it sees; a Node child also runs the preload itself.
          const child = c.appIsNode
            ? ['node', '-e', 'process.stdout.write(process.env.NODE_OPTIONS); process.exitCode = 3']
            : ['sh', '-c', 'printf %s "$NODE_OPTIONS"; exit 3'];
          const run = await startPid1(init.argv(child), { raw: true, env: { NODE_OPTIONS: c.options, PRELOAD_LOG: log } });
          const result = await run.done();
          expect(result.exitCode, result.stderr).toBe(3);
          expect(result.stdout).toBe(c.options);
          expect(result.stderr).not.toMatch(/^\s+at /m);  // no stack, from Node or sexton
          const lines = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
          expect(lines.filter((line) => line.startsWith('1 ')), 'preload lines from PID 1').toEqual([]);
          if (c.appIsNode) expect(lines.filter((line) => line.endsWith(' loaded'))).toHaveLength(1);  // the app's
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      });
    }
  }
});
