// The other images users build: sexton added to a non-Node image by a multi-stage COPY of the
// self-contained tree (images/add-sexton), and the annotated examples of Dockerfile.examples.
import { afterEach, expect, test } from 'vitest';
import {
  exec, images, logs, removeAll, runToEnd, start, stop, untilReaped, waitExit, waitForLog, zombies,
} from './containers';

afterEach(removeAll);

test('add-sexton: PID 1 is sexton on the tree\'s node, in an image that has no node', async () => {
  const { stdout, exitCode } = await runToEnd(images().added, ['sh', '-c', 'command -v node || echo no node; cat /proc/1/cmdline']);
  expect(exitCode).toBe(0);
  const [first, cmdline] = stdout.split('\n');
  expect(first).toBe('no node');
  expect(cmdline.split('\0').slice(0, 4)).toEqual(['/sexton/bin/node', '--v8-pool-size=1', '/sexton/sexton/dist/sexton.js', '--']);
});

test('add-sexton: one V8 worker, so sexton is 6 tasks, not 9', async () => {
  const { stdout, exitCode } = await runToEnd(images().added, ['sh', '-c', 'ls /proc/1/task | wc -l']);
  expect(exitCode).toBe(0);
  expect(Number(stdout.trim())).toBe(6);
});

test("add-sexton: the tree's code cache was trained by the node that runs it there", async () => {
  // The head of dist/init.cache names the node binary that made it (src/boot/code-cache.ts); the
  // loader gives V8 the cache only when that is the node running it.
  const script = 'head -2 /sexton/sexton/dist/init.cache | tail -1; /sexton/bin/node -p "process.version + \' \' + process.arch + \' \' + require(\'fs\').statSync(process.execPath).size"';
  const { stdout, exitCode } = await runToEnd(images().added, ['sh', '-c', script]);
  expect(exitCode).toBe(0);
  const [head, node] = stdout.split('\n');
  expect(head).toBe(`// node ${node}`);
});

test('add-sexton: a shell app orphans 50 jobs, none stays a zombie; stop is prompt', async () => {
  const script = 'i=0; while [ $i -lt 50 ]; do (sleep 0.05 &); i=$((i+1)); done; echo made; sleep 60';
  const name = await start(images().added, ['sh', '-c', script]);
  await waitForLog(name, 'made');
  await untilReaped(name, 50);
  expect(await zombies(name)).toEqual([]);
  expect(await stop(name, 30)).toBeLessThan(5_000);
  expect(await waitExit(name)).toBe(143);  // busybox sh dies of the forwarded SIGTERM
});

test('add-sexton: `sexton` is on PATH, and `sexton status` answers as an exec probe would ask', async () => {
  const name = await start(images().added, ['sh', '-c', 'i=0; while [ $i -lt 5 ]; do (true &); i=$((i+1)); done; echo made; sleep 60']);
  await waitForLog(name, 'made');
  expect((await exec(name, ['sh', '-c', 'command -v sexton'])).trim()).toBe('/usr/local/bin/sexton');
  // The orphans exit at once; their reaping shows up in the counters within moments.
  await untilReaped(name, 5);
  // As a liveness probe: exits 0 (exec throws otherwise), as nothing is left to be a zombie.
  expect(await exec(name, ['sexton', 'status', '--max-zombies', '0'])).toMatch(/reaped/);
  expect(await stop(name, 30)).toBeLessThan(5_000);
});

test('Dockerfile.examples node-app: serves, then closes gracefully on podman stop', async () => {
  const name = await start(images().nodeApp, []);
  await waitForLog(name, 'server: listening on 8080');
  expect(await exec(name, ['wget', '-qO-', 'http://127.0.0.1:8080/'])).toMatch(/^hello from pid \d+/);
  expect(await stop(name, 30)).toBeLessThan(5_000);
  expect(await waitExit(name)).toBe(0);
  expect(await logs(name)).toMatch(/server: SIGTERM, closing\nserver: closed/);
});

test('Dockerfile.examples shell-app: a non-Node worker; its detached jobs are reaped', async () => {
  const name = await start(images().shellApp, []);
  await waitForLog(name, 'worker: job 3 done', 15_000);
  expect(await zombies(name)).toEqual([]);
  expect(await stop(name, 30)).toBeLessThan(5_000);
  expect(await waitExit(name)).toBe(0);
  expect(await logs(name)).toMatch(/worker: stopped after \d+ jobs/);
});

test('Dockerfile.examples node-app-kubernetes: SIGTERM reaches the app after the 5 s drain delay', async () => {
  const name = await start(images().kubernetesApp, []);
  await waitForLog(name, 'server: listening on 8080');
  const ms = await stop(name, 30);
  console.log(`stop, --drain-delay 5 --grace 20: ${Math.round(ms)} ms`);
  expect(ms).toBeGreaterThanOrEqual(5_000);
  expect(ms).toBeLessThan(15_000);
  expect(await waitExit(name)).toBe(0);
  expect(await logs(name)).toMatch(/server: closed/);
});
