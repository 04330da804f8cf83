// --drain-quiet as an operator sees it: sexton's own listeners are not traffic, the
// line at the forward, the same in metrics, `sexton status` and the stats file, the count of what
// came after the forward, and the host network, where quiet cannot be told.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { SNAPSHOT_INTERVAL_MS } from '../../src/report/exporters/index';
import { Rig } from '../support/balancer';
import { status, statusJson } from '../support/observability';
import { httpGet } from '../support/http';
import { fixture, requireBuilt, startPid1, sleep, until } from '../support/pid1';
import { switchesByThread } from '../support/processes';

let rig: Rig | undefined;
let dir: string | undefined;
beforeAll(requireBuilt);
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** GET http://host:port/path: its status and body, or the error's code. */
const get = (host: string, port: number, urlPath = '/') =>
  httpGet(port, urlPath, { host, timeoutMs: 2000 }).catch((error: NodeJS.ErrnoException) => error.code ?? error.message);

/** Context switches of every thread of pid: an idle process has none. */
const switches = (pid: number) => [...switchesByThread(pid).values()].reduce((a, b) => a + b, 0);

test("scrapes of sexton's own metrics are not traffic; what comes after the forward is counted and told", async () => {
  rig = new Rig();
  const pod = await rig.addPod();
  dir = mkdtempSync(path.join(tmpdir(), 'drain-feedback-'));
  const statsFile = path.join(dir, 'stats.json');
  const socket = path.join(dir, 'status.sock');
  // The app goes on serving for 30 s after it gets TERM (requests then are the late ones), until a second TERM.
  const run = await startPid1([
    '--drain-quiet', '0.5', '--drain-delay', '5', '--grace', '60', '--metrics', '0.0.0.0:9102', '--stats-file', statsFile, '--status-socket', socket,
    '--', process.execPath, fixture('drain-backend.cjs'), '8080', 'app', '30000',
  ], { launcher: ['ip', 'netns', 'exec', pod.netns], timeoutMs: 30_000 });
  await run.waitFor('app listening');
  await until(async () => typeof (await get(pod.address, 9102, '/metrics')) === 'object', 5000, 'metrics to listen');
  expect(await get(pod.address, 8080)).toEqual({ code: 200, body: 'app\n' });

  const stoppedAt = Date.now();
  run.signal('SIGTERM');
  // A Prometheus scraping every 100 ms through the drain: the pod still goes quiet.
  while (!run.stderr().includes('drain: forwarding') && Date.now() - stoppedAt < 6000) {
    await get(pod.address, 9102, '/metrics');
    await sleep(100);
  }
  const waited = Date.now() - stoppedAt;
  expect(run.stderr()).toMatch(/drain: forwarding the stop signal, waited \d\.\d\ds \(quiet for 0\.5s\); no traffic after the stop signal/);
  expect(waited).toBeGreaterThanOrEqual(500);
  expect(waited).toBeLessThan(4000);

  // Late requests, while the app still serves: the balancer had not been told.
  for (let i = 0; i < 5; i++) expect(await get(pod.address, 8080)).toMatchObject({ code: 200 });
  // A sample or more after the last of them, and past the shared snapshot that metrics and status
  // answer from (taken at most once per SNAPSHOT_INTERVAL_MS: the one from the forward is stale by then).
  await sleep(300 + SNAPSHOT_INTERVAL_MS);
  const metrics = await get(pod.address, 9102, '/metrics');
  expect(typeof metrics === 'object' && metrics.body).toMatch(/^sexton_drain_waited_seconds \d+(\.\d+)?$/m);
  expect(typeof metrics === 'object' && metrics.body).toMatch(/^sexton_drain_capped 0$/m);
  expect(typeof metrics === 'object' && metrics.body).toMatch(/^sexton_drain_after_forward_total\{kind="connections"\} 5$/m);
  const snapshot = await statusJson(socket, run.pid1);
  expect(snapshot.drain).toMatchObject({ quietSeconds: 0.5, capSeconds: 5, watch: 'traffic', endedBy: 'quiet', lastTrafficSeconds: null });
  expect(snapshot.drain.afterForward.connections).toBe(5);
  const table = await status(['--socket', socket, '--pid', String(run.pid1)]);
  expect(table.stdout, table.stderr).toMatch(/^drain +quiet 0\.5s, cap 5s; forwarded at \+\d+(\.\d+)?s \(quiet\), no traffic after the stop signal; after it: 5 connections, \d+ requests, \d+ resets$/m);

  run.signal('SIGTERM');  // forwarded: the app leaves now
  const done = await run.done();
  expect(done.exitCode).toBe(0);
  expect(done.stderr).toMatch(/drain: 5 connection\(s\) and \d+ request\(s\) reached the app after the stop signal was forwarded/);
  const stats = JSON.parse(readFileSync(statsFile, 'utf8'));
  expect(stats.drain).toMatchObject({ endedBy: 'quiet', afterForward: { connections: 5 } });
}, 60_000);

test('idle, --drain-quiet never wakes sexton; in the host network namespace quiet cannot be told: said once, the cap decides', async () => {
  const run = await startPid1(['--drain-quiet', '0.2', '--drain-delay', '1', '--', 'sh', '-c', 'echo ready; exec sleep 60']);
  const started = Date.now();
  await run.waitFor('ready');
  // Settled past V8's memory reducer (~8 s after start: see metrics-idle.test.ts), then watched.
  await sleep(Math.max(1000, 10_000 - (Date.now() - started)));
  const before = switches(run.pid1);
  await sleep(3000);
  expect(switches(run.pid1) - before, 'context switches of sexton while idle').toBe(0);
  const stoppedAt = Date.now();
  run.signal('SIGTERM');
  const done = await run.done();
  expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1000);
  expect(done.stderr.match(/whether the app's traffic stopped cannot be told/g)).toHaveLength(1);
  expect(done.stderr).toMatch(/drain: sexton runs in the host's network namespace \(this is the initial network namespace\)/);
  expect(done.stderr).toMatch(/drain: forwarding the stop signal, waited 1\.\d\ds \(the 1s cap \(host network: quiet cannot be told\)\)/);
}, 40_000);

test('bad input: one usage line (and where to find the usage), exit 2', async () => {
  for (const [args, message] of [
    [['--drain-quiet', '0', '-d', '5'], /^sexton: drain-quiet '?0'?: expected seconds from 0\.1 to 86400, e\.g\. 2$/m],
    [['--drain-quiet', '-1', '-d', '5'], /drain-quiet .*-1.*: expected seconds/],
    [['--drain-quiet', 'soon', '-d', '5'], /drain-quiet .*soon.*: expected seconds/],
    [['--drain-quiet', '9', '-d', '5'], /drain-quiet 9 is longer than drain-delay 5, its cap/],
  ] as const) {
    const run = await startPid1([...args, '--', 'true']);
    const done = await run.done();
    expect(done.exitCode).toBe(2);
    expect(done.stderr).toMatch(message);
    expect(done.stderr.trim().split('\n')).toEqual([expect.stringMatching(message), "Try 'sexton --help' for usage."]);
  }
}, 30_000);
