// The README's stop-signal recipes, with real servers from Debian packages under sexton as
// PID 1 of a fresh PID namespace, reached over loopback or a Unix socket. Each recipe is
// tested next to what plain TERM does, so that the test would fail if the recipe did not matter.
import { execa } from 'execa';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { requireBuilt, startPid1, until } from '../support/pid1';
import { freePort, listening } from '../support/http';
import { cleanUpServers, download, type Download, idleSession, initPostgres, nginxConfig, openDir, Postgres } from '../support/servers';

beforeAll(requireBuilt);
afterEach(() => {
  cleanUpServers();
});

const READY = 'database system is ready to accept connections';
const CRASH_RECOVERY = /not properly shut down; automatic recovery in progress|database system was interrupted/;

/** Starts the cluster again under sexton and returns what its start-up logged, then stops it. */
async function restartLog(pg: Postgres): Promise<string> {
  const run = await startPid1(['-r', 'TERM:INT', '--', ...pg.argv]);
  await run.waitFor(READY, 'stderr', 30_000);
  const log = run.stderr();
  run.signal('SIGTERM');
  expect((await run.done()).exitCode).toBe(0);
  return log;
}

describe('PostgreSQL', () => {
  test('-r TERM:INT: a fast shutdown with a client connected, logged as clean; the next start needs no recovery', async () => {
    const pg = await initPostgres();
    const run = await startPid1(['-r', 'TERM:INT', '--grace', '10', '--', ...pg.argv]);
    await run.waitFor(READY, 'stderr', 30_000);
    await idleSession(pg);
    run.signal('SIGTERM');
    const { exitCode, stderr, durationMs } = await run.done();
    expect(exitCode, stderr).toBe(0);
    expect(durationMs).toBeLessThan(30_000);
    expect(stderr).toMatch(/received fast shutdown request[\s\S]*checkpoint starting: shutdown immediate[\s\S]*database system is shut down/);
    expect(stderr).toMatch(/sexton: exiting with 0: .*forwarded INT×1/);

    const log = await restartLog(pg);
    expect(log).toMatch(/database system was shut down at/);
    expect(log).not.toMatch(CRASH_RECOVERY);
  });

  test('plain TERM is a smart shutdown: it waits for the client, is killed at the grace period, and the next start recovers', async () => {
    const pg = await initPostgres();
    const run = await startPid1(['--grace', '2', '--', ...pg.argv]);
    await run.waitFor(READY, 'stderr', 30_000);
    await idleSession(pg);
    run.signal('SIGTERM');
    const { exitCode, stderr, durationMs } = await run.done();
    expect(stderr).toMatch(/received smart shutdown request/);
    expect(stderr).toMatch(/grace period over: killing pid \d+ \(.*postgres/);
    expect(exitCode).toBe(137);
    expect(durationMs).toBeGreaterThanOrEqual(2000);

    expect(await restartLog(pg)).toMatch(CRASH_RECOVERY);
  });
});

/** Starts a download of each name and resolves once every response has begun: in flight, an event, not a wait. */
async function inFlight(port: number, names: string[]): Promise<Promise<Download>[]> {
  const begun: Promise<void>[] = [];
  const downloads = names.map((name) => {
    let heard = () => {};
    begun.push(new Promise<void>((resolve) => (heard = resolve)));
    return download(port, name, () => heard());
  });
  await Promise.race([Promise.all(begun), Promise.all(downloads)]);  // a failed one ends the wait too
  return downloads;
}

describe('nginx', () => {
  // 7 downloads of 1.5 MiB at 1 MiB/s each: in flight for ~1.5 s when the stop comes.
  const SIZE = 1.5 * 1024 * 1024;
  const FILES = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`file-${i}.bin`, SIZE]));

  test('-r TERM:QUIT --drain-delay 1: all 7 in-flight downloads complete, a request during the drain is served; exit 0', async () => {
    const port = await freePort();
    const nginx = nginxConfig(port, { ...FILES, 'small.txt': 10 });
    const run = await startPid1(['-r', 'TERM:QUIT', '--drain-delay', '1', '--grace', '20', '--', ...nginx.argv]);
    await listening(port);
    const downloads = await inFlight(port, Object.keys(FILES));
    run.signal('SIGTERM');
    await run.waitFor('after a 1s drain delay', 'stderr');
    // The load balancer still sends requests for a moment: they are served during the drain.
    const late = await download(port, 'small.txt');
    expect(late).toEqual({ status: 200, bytes: 10, complete: true });
    const results = await Promise.all(downloads);
    expect(results.filter((d) => d.complete).length, JSON.stringify(results)).toBe(7);
    const { exitCode, stderr, durationMs } = await run.done();
    expect(exitCode, stderr).toBe(0);
    expect(durationMs).toBeGreaterThanOrEqual(1000);
    expect(stderr).toMatch(/gracefully shutting down/);
    expect(stderr).toMatch(/sexton: exiting with 0: .*forwarded QUIT×1/);
  });

  test('plain TERM is a fast stop: in-flight downloads are cut', async () => {
    const port = await freePort();
    const nginx = nginxConfig(port, FILES);
    const run = await startPid1(['--grace', '20', '--', ...nginx.argv]);
    await listening(port);
    const downloads = await inFlight(port, Object.keys(FILES));
    run.signal('SIGTERM');
    const results = await Promise.all(downloads);
    expect(results.filter((d) => d.complete).length, JSON.stringify(results)).toBe(0);
    expect(results.every((d) => d.bytes < SIZE)).toBe(true);
    const { exitCode, stderr } = await run.done();
    expect(exitCode, stderr).toBe(0);  // nginx calls its fast stop a success
    expect(stderr).toMatch(/sexton: exiting with 0: .*forwarded TERM×1/);
    expect(stderr).not.toMatch(/gracefully shutting down/);
  });
});

describe('redis and gunicorn: plain TERM is already right', () => {
  test('redis: TERM saves the final snapshot and exits 0', async () => {
    const dir = openDir('sexton-redis-');
    const port = await freePort();
    const run = await startPid1(['--', 'redis-server', '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '3600 1', '--appendonly', 'no']);
    await run.waitFor('Ready to accept connections', 'stdout');
    const set = await execa('redis-cli', ['-p', String(port), 'set', 'recipe', 'kept'], { timeout: 10_000 });
    expect(set.stdout).toBe('OK');
    run.signal('SIGTERM');
    const { exitCode, stdout, stderr } = await run.done();
    expect(exitCode, stderr).toBe(0);
    expect(stdout).toMatch(/Saving the final RDB snapshot before exiting[\s\S]*DB saved on disk[\s\S]*ready to exit/);
    expect(readFileSync(path.join(dir, 'dump.rdb')).includes('kept')).toBe(true);
  });

  test('gunicorn: TERM lets a request in flight finish within --graceful-timeout, then exits 0', async () => {
    const dir = openDir('sexton-gunicorn-');
    writeFileSync(path.join(dir, 'app.py'), [
      'import time',
      'def app(environ, start_response):',
      "    open('in-app', 'w').close()  # the test's event: the request is in the worker",
      '    time.sleep(1.5)',
      "    start_response('200 OK', [('Content-Type', 'text/plain'), ('Content-Length', '11')])",
      "    return [b'slow hello\\n']",
      '',
    ].join('\n'));
    const port = await freePort();
    const run = await startPid1(['--grace', '20', '--', 'gunicorn', '--chdir', dir, '-b', `127.0.0.1:${port}`, '--graceful-timeout', '10', 'app:app']);
    await run.waitFor('Booting worker', 'stderr');
    const slow = download(port, '');
    await until(() => existsSync(path.join(dir, 'in-app')), 10_000, 'the request to reach the app');
    run.signal('SIGTERM');
    expect(await slow).toEqual({ status: 200, bytes: 11, complete: true });
    const { exitCode, stderr } = await run.done();
    expect(exitCode, stderr).toBe(0);
    expect(stderr).toMatch(/Handling signal: term[\s\S]*Shutting down: Master/);
  });
});
