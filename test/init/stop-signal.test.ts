// The stop signal you configure is the stop: with --stop-signal QUIT (a pod's lifecycle.stopSignal
// or an image's STOPSIGNAL SIGQUIT), QUIT starts the whole stop sequence with sexton as a real
// PID 1: /readyz turns 503 at once, the drain delay holds the app untouched, the app then gets
// the signal it wants (QUIT rewritten to TERM), and the grace period runs from there.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { beforeAll, expect, test } from 'vitest';
import { freePort, httpGet } from '../support/http';
import { fixture, requireBuilt, startPid1, until, untilExecuted } from '../support/pid1';
import { logLines, readyPids, signalStamps } from '../support/shutdown';

beforeAll(() => requireBuilt());

test('QUIT as the stop signal: readiness drops, the drain runs, TERM reaches the app after it, SIGKILL at the grace period', async () => {
  const port = await freePort();
  const args = ['-s', 'QUIT', '-r', 'QUIT:TERM', '-d', '1', '-t', '1', '--health', `127.0.0.1:${port}`];
  const run = await startPid1([...args, '--', process.execPath, fixture('shutdown-signals.mjs'), 'ignore']);
  await readyPids(run);
  await until(async () => (await httpGet(port, '/readyz').catch(() => undefined))?.code === 200, 10_000, '/readyz 200');

  const sent = Date.now();
  run.signal('SIGQUIT');
  expect(await httpGet(port, '/readyz')).toEqual({ code: 503, body: 'not ready: stopping: the stop signal arrived\n' });
  expect((await httpGet(port, '/livez')).code).toBe(200);
  const result = await run.done();
  const took = Date.now() - sent;

  // The app heard nothing during the drain, then TERM (not QUIT), once.
  const [term, ...more] = signalStamps(result.stdout, 'SIGTERM');
  expect(term - sent).toBeGreaterThanOrEqual(1000);
  expect(more).toEqual([]);
  // It ignored TERM: the grace period that started with the forward ended it.
  expect(result.exitCode).toBe(137);
  expect(took).toBeGreaterThanOrEqual(2000);
  expect(took).toBeLessThan(6000);
  const lines = logLines(result.stderr);
  expect(lines[0]).toBe('received QUIT: stopping after a 1s drain delay, grace period 1s');
  expect(lines.some((l) => l.startsWith('grace period over: killing pid'))).toBe(true);
  // Chosen explicitly, the stop signal brings no start-up warning.
  expect(result.stderr).not.toContain('stop signal cannot be seen');
}, 30_000);

test('without the setting, one start-up line when the program is one whose image stops with QUIT; none for a Node app', async () => {
  // A program named nginx (sleep under that name): only the command's name is what sexton sees.
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-stop-signal-'));
  try {
    symlinkSync('/bin/sleep', path.join(dir, 'nginx'));
    const nginx = await startPid1(['--', path.join(dir, 'nginx'), '30']);
    await nginx.waitFor("the container's stop signal cannot be seen from inside", 'stderr');
    nginx.signal('SIGTERM');
    const warned = logLines((await nginx.done()).stderr).filter((l) => l.includes('stop signal cannot be seen'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain("'nginx' images stop with QUIT (their STOPSIGNAL): if the runtime sends QUIT, sexton only forwards it");

    const chosen = await startPid1(['--', path.join(dir, 'nginx'), '30'], { env: { SEXTON_STOP_SIGNAL: 'TERM' } });
    const node = await startPid1(['--', process.execPath, fixture('shutdown-signals.mjs'), 'exit-after', '0']);
    await readyPids(node);
    await untilExecuted(chosen.pid1);
    for (const run of [chosen, node]) run.signal('SIGTERM');
    for (const run of [chosen, node]) expect((await run.done()).stderr).not.toContain('stop signal cannot be seen');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);
