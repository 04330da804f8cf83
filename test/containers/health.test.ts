// /livez and /readyz from a real container: reached through a port published on a
// bridge network (CNI's bridge and portmap here: no slirp4netns or pasta on these machines),
// and `podman healthcheck run` with `sexton status --ready`, which turns unhealthy the moment
// the stop signal arrives while the app still serves its drain delay.
import { afterEach, expect, inject, test } from 'vitest';
import { images, removeAll, start, waitForLog } from './containers';
import { podman } from './podman';
import { freePort, httpGet } from '../support/http';

afterEach(removeAll);


test('the health port through a published port: /readyz 200, then 503 at podman kill -s TERM while /livez stays 200', async () => {
  const port = await freePort();
  const name = await start(images().node, ['node', '/apps/cooperative.mjs'], {
    network: 'bridge',
    runFlags: ['-p', `127.0.0.1:${port}:8086`],
    env: { SEXTON_HEALTH: '0.0.0.0:8086', SEXTON_DRAIN_DELAY: '5' },
  });
  await waitForLog(name, 'cooperative: ready');
  await expect.poll(() => httpGet(port, '/readyz').catch(() => undefined), { timeout: 20_000, interval: 200 })
    .toEqual({ code: 200, body: 'ok: the main child runs\n' });
  await podman(inject('engine'), ['kill', '--signal', 'TERM', name]);
  expect(await httpGet(port, '/readyz')).toEqual({ code: 503, body: 'not ready: stopping: the stop signal arrived\n' });
  expect(await httpGet(port, '/livez')).toEqual({ code: 200, body: 'ok\n' });
  expect(await waitForLog(name, 'received TERM')).not.toContain('cooperative: SIGTERM');  // draining: the app has not heard yet
});

test('podman healthcheck run with sexton status --ready: healthy, then unhealthy from the stop signal on', async () => {
  const name = await start(images().node, ['node', '/apps/cooperative.mjs'], {
    env: { SEXTON_DRAIN_DELAY: '5' },
    runFlags: ['--health-cmd', 'sexton status --ready', '--health-interval', 'disable', '--health-retries', '1'],
  });
  await waitForLog(name, 'cooperative: ready');
  const engine = inject('engine');
  const healthy = await podman(engine, ['healthcheck', 'run', name], { reject: false });
  expect(healthy.exitCode, healthy.stderr).toBe(0);
  expect(healthy.stdout.trim()).toBe('');
  await podman(engine, ['kill', '--signal', 'TERM', name]);
  const unhealthy = await podman(engine, ['healthcheck', 'run', name], { reject: false });
  expect(unhealthy.exitCode).toBe(1);
  expect(`${unhealthy.stdout}${unhealthy.stderr}`).toContain('unhealthy');
  const state = await podman(engine, ['inspect', '--format', '{{.State.Health.Status}}', name]);
  expect(state.stdout.trim()).toBe('unhealthy');
});
