// `podman stop` against sexton as PID 1: a cooperative app stops at once; an app that ignores
// SIGTERM is killed when sexton's grace period ends, long before podman's own SIGKILL; a
// daemonized writer the app left behind is asked to stop too, and finishes its file.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, afterEach, expect, test } from 'vitest';
import { images, logs, removeAll, start, stop, untilChild, waitExit, waitForLog } from './containers';

afterEach(removeAll);

const data = mkdtempSync(path.join(tmpdir(), 'sexton-stop-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));

test('podman stop -t 30 with a cooperative app returns at once, exit 0', async () => {
  const name = await start(images().node, ['node', '/apps/cooperative.mjs']);
  await waitForLog(name, 'cooperative: ready');
  const ms = await stop(name, 30);
  console.log(`stop, cooperative app: ${Math.round(ms)} ms`);
  expect(ms).toBeLessThan(5_000);
  expect(await waitExit(name)).toBe(0);
  expect(await logs(name)).toMatch(/cooperative: SIGTERM, bye/);
});

test('an app killed by the forwarded SIGTERM reports 143', async () => {
  const name = await start(images().node, ['sleep', '60']);
  await untilChild(name, 'sleep 60');  // a TERM before sexton's handlers would wait for podman's KILL
  const ms = await stop(name, 30);
  expect(ms).toBeLessThan(5_000);
  expect(await waitExit(name)).toBe(143);
});

test('an app that ignores SIGTERM, --grace 2: stopped in about 2 s with 137, before podman\'s SIGKILL', async () => {
  const name = await start(images().node, ['sh', '/apps/ignore-term.sh'], { env: { SEXTON_GRACE: '2' } });
  await waitForLog(name, 'ignore-term: ready');
  const ms = await stop(name, 30);
  console.log(`stop, app ignoring SIGTERM with --grace 2: ${Math.round(ms)} ms`);
  expect(ms).toBeGreaterThanOrEqual(2_000);
  expect(ms).toBeLessThan(10_000);  // podman's own SIGKILL would come at 30 s
  expect(await waitExit(name)).toBe(137);
  expect(await logs(name)).toMatch(/grace period over: killing pid \d+ \(sh \/apps\/ignore-term.sh\)/);
});

test('a daemonized writer left behind by the app gets SIGTERM and completes its file', async () => {
  const out = path.join(data, 'writer.out');
  const name = await start(images().node, ['sh', '/apps/launch-daemon.sh', '/data/writer.out', 'node', '/apps/cooperative.mjs'], {
    env: { SEXTON_GRACE: '2' },
    volumes: { [data]: '/data' },
  });
  await waitForLog(name, 'cooperative: ready');
  const ms = await stop(name, 30);
  console.log(`stop, app + daemon needing 0.5 s to flush: ${Math.round(ms)} ms`);
  expect(ms).toBeGreaterThanOrEqual(500);
  expect(ms).toBeLessThan(2_000 + 3_000);  // within the grace period (plus podman's own time)
  expect(await waitExit(name)).toBe(0);
  expect(readFileSync(out, 'utf8')).toBe('flushing\ncomplete\n');
  expect(await logs(name)).toMatch(/1 process\(es\) left: sending TERM/);
});

test('app ignoring SIGTERM plus a daemonized writer, --grace 2: the daemon gets SIGTERM at once and completes; the app is killed at 2 s', async () => {
  const out = path.join(data, 'writer-stubborn.out');
  const name = await start(images().node, ['sh', '/apps/launch-daemon.sh', '/data/writer-stubborn.out', 'sh', '/apps/ignore-term.sh'], {
    env: { SEXTON_GRACE: '2' },
    volumes: { [data]: '/data' },
  });
  await waitForLog(name, 'ignore-term: ready');
  const ms = await stop(name, 30);
  console.log(`stop, stubborn app + daemon needing 0.5 s to flush: ${Math.round(ms)} ms`);
  expect(ms).toBeGreaterThanOrEqual(2_000);
  expect(ms).toBeLessThan(10_000);  // podman's own SIGKILL would come at 30 s
  expect(await waitExit(name)).toBe(137);
  expect(readFileSync(out, 'utf8')).toBe('flushing\ncomplete\n');
});
