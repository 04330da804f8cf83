// sexton as the ENTRYPOINT of a real container: it is PID 1, it reaps what a leaky app
// orphans, and the app's exit status is the container's.
import { afterEach, expect, test } from 'vitest';
import {
  images, processes, removeAll, runToEnd, start, untilChild, untilReaped, untilZombies, waitExit, waitForLog, zombies,
} from './containers';

afterEach(removeAll);

/** The harness' orphan workload, shipped in the package (dist/workload.js). */
const ORPHANS = ['node', '/usr/local/lib/node_modules/sexton/dist/workload.js', 'orphans', '200'];

test('sexton is PID 1 and the app is its child', async () => {
  const name = await start(images().node, ['sleep', '30']);
  const rows = await untilChild(name, 'sleep 30');
  expect(rows[0]).toMatch(/^1\s+0\s+node \/usr\/local\/bin\/sexton -- sleep 30/);
  expect(rows).toContainEqual(expect.stringMatching(/^\d+\s+1\s+sleep 30/));
  const { stdout } = await runToEnd(images().node, ['cat', '/proc/1/cmdline']);
  expect(stdout.split('\0').slice(0, 3)).toEqual(['node', '/usr/local/bin/sexton', '--']);
});

test('an app that orphans 200 processes leaves no zombie under sexton', async () => {
  const name = await start(images().node, ORPHANS);
  await waitForLog(name, 'orphans-created');
  await untilReaped(name, 200);  // the last orphans may still have been exiting at that line
  expect(await zombies(name)).toEqual([]);
  const procs = await processes(name);
  expect(procs.find((p) => p.pid === 1)?.command).toMatch(/sexton/);
});

test('the same app as PID 1 without sexton piles up zombies (the check can fail)', async () => {
  const name = await start(images().node, ORPHANS.slice(1), { entrypoint: 'node' });
  await waitForLog(name, 'orphans-created');
  await untilZombies(name, 200);  // fails at its bound if any were reaped
  expect((await zombies(name)).length).toBe(200);
});

test('exit codes reach podman wait', async () => {
  expect((await runToEnd(images().node, ['sh', '-c', 'exit 42'])).exitCode).toBe(42);
  expect((await runToEnd(images().node, ['sh', '-c', 'exit 0'])).exitCode).toBe(0);
  // Killed by a signal: PID 1 cannot die by one, so it reports 128 + signo.
  expect((await runToEnd(images().node, ['sh', '-c', 'kill -KILL $$'])).exitCode).toBe(137);
  const missing = await runToEnd(images().node, ['/no/such/program']);
  expect(missing.exitCode).toBe(127);
  expect(missing.stderr).toMatch(/no\/such\/program/);
});

test('podman wait sees the exit code of a long-running app when it ends by itself', async () => {
  const name = await start(images().node, ['sh', '-c', 'sleep 1; exit 3']);
  expect(await waitExit(name)).toBe(3);
});
