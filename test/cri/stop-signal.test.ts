// An image with STOPSIGNAL SIGQUIT (as one built FROM nginx or php-fpm has): containerd's
// StopContainer sends QUIT, not TERM. With SEXTON_STOP_SIGNAL=QUIT, QUIT is sexton's stop: /readyz
// turns 503, the drain delay runs with the app untouched, the app gets the TERM it wants
// (SEXTON_REWRITE=QUIT:TERM) and the exit is within the grace. Without the setting QUIT is just
// forwarded: the app dies at once, mid-traffic, and readiness never said so.
import { afterEach, expect, test } from 'vitest';
import { freePort, httpGet } from '../support/http';
import { until } from '../support/pid1';
import { CRI_IMAGES } from './images';
import { cri, exited, Pod, podName } from './pods';

/** A Node app that shuts down on TERM in half a second; QUIT kills it (Node's default). */
const APP = ['node', '-e', 'process.on("SIGTERM", () => { console.log("app got TERM"); setTimeout(() => process.exit(0), 500); }); console.log("started"); setInterval(() => {}, 1000)'];
const DRAIN = 2;
const GRACE = 3;
/** terminationGracePeriodSeconds: StopContainer's timeout. */
const POD_GRACE = 10;

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

async function started(pod: Pod, port: number, env: Record<string, string>): Promise<string> {
  const command = ['sexton', '--health', `127.0.0.1:${port}`, '--drain-delay', String(DRAIN), '--grace', String(GRACE), '--'];
  const app = await pod.start({ name: 'app', image: CRI_IMAGES.nodeStopQuit, command, args: APP, env });
  await until(async () => (await httpGet(port, '/readyz').catch(() => undefined))?.code === 200, 20_000, '/readyz 200');
  return app;
}

test('STOPSIGNAL SIGQUIT and SEXTON_STOP_SIGNAL=QUIT: StopContainer flips /readyz, the drain runs, TERM reaches the app, exit 0 within the grace', async () => {
  const port = await freePort();
  const pod = await new Pod(podName('stopsignal-quit')).run();
  pods.push(pod);
  const app = await started(pod, port, { SEXTON_STOP_SIGNAL: 'QUIT', SEXTON_REWRITE: 'QUIT:TERM' });

  const asked = Date.now();
  const stopping = cri().stopContainer(app, POD_GRACE);
  const notReady = await until(async () => {
    const ready = await httpGet(port, '/readyz');
    return ready.code === 503 ? { ms: Date.now() - asked, body: ready.body } : undefined;
  }, DRAIN * 1000, '/readyz 503');
  expect(notReady.body).toBe('not ready: stopping: the stop signal arrived\n');
  // Inside the drain: the container runs and the app has heard nothing (that it hears nothing
  // for the whole drain, the stop's duration below shows).
  expect((await cri().containerStatus(app)).state).toBe('CONTAINER_RUNNING');
  expect(pod.log('app')).not.toContain('app got TERM');

  await stopping;
  const ms = Date.now() - asked;
  console.log(`cri STOPSIGNAL SIGQUIT: /readyz 503 after ${notReady.ms} ms, StopContainer(timeout ${POD_GRACE}) took ${ms} ms`);
  expect(ms).toBeGreaterThanOrEqual(DRAIN * 1000);
  expect(ms).toBeLessThan((DRAIN + GRACE) * 1000);
  expect((await exited(app)).exit_code).toBe(0);
  const log = pod.log('app');
  expect(log).toContain(`sexton: received QUIT: stopping after a ${DRAIN}s drain delay, grace period ${GRACE}s`);
  expect(log).toContain('app got TERM');
  expect(log).not.toContain('stop signal cannot be seen');
});

test('the same image without the setting: QUIT is forwarded as it is, the app dies at once and no drain runs', async () => {
  const port = await freePort();
  const pod = await new Pod(podName('stopsignal-quit-unset')).run();
  pods.push(pod);
  const app = await started(pod, port, {});

  const asked = Date.now();
  await cri().stopContainer(app, POD_GRACE);
  const ms = Date.now() - asked;
  console.log(`cri STOPSIGNAL SIGQUIT without SEXTON_STOP_SIGNAL: StopContainer took ${ms} ms, exit ${(await exited(app)).exit_code}`);
  expect(ms).toBeLessThan(DRAIN * 1000);
  expect((await exited(app)).exit_code).toBe(128 + 3);  // the app died of QUIT
  const log = pod.log('app');
  expect(log).not.toContain('received QUIT');
  expect(log).not.toContain('app got TERM');
});
