import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { expect, test } from 'vitest';
import { FIXTURES, runAsPid1, sextonArgv } from './support/pid1';


test('a NODE_OPTIONS preload meant for the app does not stay inside PID 1, and the child gets NODE_OPTIONS unchanged', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-node-options-'));
  try {
    const log = path.join(dir, 'preload.log');
    const nodeOptions = `--require ${path.join(FIXTURES, 'node-options-preload.cjs')} --max-old-space-size=200`;
    const run = await runAsPid1(
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
  const run = await runAsPid1(['--', 'sh', '-c', 'echo "$NODE_OPTIONS"; tr "\\0" "\\n" < /proc/1/environ | grep NODE_OPTIONS'], {
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
    const run = await runAsPid1(
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
