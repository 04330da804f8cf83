// An image that had tini or dumb-init keeps its ENTRYPOINT: a link with that name to sexton is
// PID 1 of the container, answers to the peer's flags, and `podman stop` ends it as the peer's.
import { afterEach, expect, test } from 'vitest';
import { until } from '../support/pid1';
import { exec, images, logs, removeAll, runToEnd, start, stop, waitExit, waitForLog } from './containers';

afterEach(removeAll);

/** `ln -s sexton /usr/local/bin/NAME`, then NAME as PID 1 with these arguments. */
function linkedAs(name: string, args: string[]): [string[], { entrypoint: string }] {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return [['-c', `ln -s /usr/local/bin/sexton /usr/local/bin/${name} && exec ${name} ${quoted}`], { entrypoint: 'sh' }];
}

test("linked as tini: PID 1 is sexton as tini, and -g hands podman stop's TERM to the child's whole group", async () => {
  // Only with -g does the sleep get the TERM; sh's trap then runs and it exits 0.
  const name = await start(images().node, ...linkedAs('tini', ['-g', '--', 'sh', '-c', 'trap "echo sh-got-term" TERM; echo ready; sleep 60; echo sleep=$?']));
  await waitForLog(name, 'ready');
  await new Promise((r) => setTimeout(r, 300));  // sh is in its sleep
  expect((await exec(name, ['cat', '/proc/1/cmdline'])).split('\0').slice(0, 3)).toEqual(['node', '/usr/local/bin/tini', '-g']);
  expect(await stop(name, 30)).toBeLessThan(5_000);
  expect(await waitExit(name)).toBe(0);
  expect(await logs(name)).toMatch(/sleep=143/);
});

test('linked as tini: --version is a tini version line naming sexton; bad usage exits 1', async () => {
  const version = await runToEnd(images().node, ...linkedAs('tini', ['--version']));
  expect([version.exitCode, version.stdout.trim()]).toEqual([0, expect.stringMatching(/^tini version \S+_sexton$/)]);
  expect((await runToEnd(images().node, ...linkedAs('tini', ['-x', 'true']))).exitCode).toBe(1);
});

test('linked as dumb-init: the child leads its own session, podman stop ends it with 143, an exec failure is 2', async () => {
  const name = await start(images().node, ...linkedAs('dumb-init', ['sh', '-c', 'sleep 60 & wait']));
  const childStat = 'c=$(cut -d" " -f1 /proc/1/task/1/children); [ -z "$c" ] || cut -d" " -f1,5,6 /proc/$c/stat';
  const stat = await until(async () => (await exec(name, ['sh', '-c', childStat])).trim(), 15_000, 'the child of PID 1');
  const [pid, pgrp, sid] = stat.split(' ');
  expect([pgrp, sid]).toEqual([pid, pid]);
  expect(await stop(name, 30)).toBeLessThan(5_000);
  expect(await waitExit(name)).toBe(143);
  const missing = await runToEnd(images().node, ...linkedAs('dumb-init', ['/no/such/program']));
  expect([missing.exitCode, missing.stderr.trim()]).toEqual([2, '[dumb-init] /no/such/program: No such file or directory']);
});
