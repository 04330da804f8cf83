// --health and --ready-when, with sexton as a real PID 1: /readyz follows the stop
// signal at once while /livez stays up and the child is left alone for the drain; readiness by
// sd_notify from a child that says READY=1 late, and from one that sends garbage.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFixtures, CompiledFixtures } from '../support/faults';
import { status, statusJson } from '../support/observability';
import { freePort, httpGet } from '../support/http';
import { requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { procStat } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';


async function answered(port: number, path: string, code: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await httpGet(port, path).catch(() => undefined);
    if (got?.code === code) return got;
    if (Date.now() > deadline) throw new Error(`${path} never answered ${code}; last ${JSON.stringify(got)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let fixtures: CompiledFixtures;
beforeAll(() => {
  requireBuilt();
  fixtures = compileFixtures(['notify-send']);
});
afterAll(() => fixtures?.remove());

describe('readiness follows the stop', () => {
  it('turns /readyz 503 at the stop signal, before the drain delay, while /livez stays 200 and the child is untouched', async () => {
    const port = await freePort();
    const app = "trap 'echo app-got-TERM; exit 0' TERM; echo app-up; while :; do sleep 0.05; done";
    const socket = `@sexton-health-test.${process.pid}.${port}`;
    const run = await startPid1(['--health', `127.0.0.1:${port}`, '--status-socket', socket, '--drain-delay', '6', '--', 'sh', '-c', app]);
    await run.waitFor('app-up');
    expect((await answered(port, '/readyz', 200)).body).toBe('ok: the main child runs\n');
    const ready = ['--ready', '--socket', socket, '--pid', String(run.pid1)];
    expect(await status(ready)).toMatchObject({ exitCode: 0, stdout: 'ready: the main child runs' });
    expect(await httpGet(port, '/livez')).toEqual({ code: 200, body: 'ok\n' });
    const [child] = childrenOf(run.pid1);

    const sent = performance.now();
    run.signal('SIGTERM');
    // The first probe made after the signal already fails: the handler's counter is read per
    // request, whatever JS has heard of yet.
    const first = await httpGet(port, '/readyz');
    const latencyMs = performance.now() - sent;
    expect(first.code).toBe(503);
    expect(first.body).toBe('not ready: stopping: the stop signal arrived\n');
    console.log(`readyz 503 answered ${latencyMs.toFixed(1)} ms after the TERM was sent`);
    expect(latencyMs).toBeLessThan(5000);  // the 50 ms of the issue, with room for a machine at load 30

    // The drain: sexton is live, the app still runs and has not heard of the stop.
    for (let i = 0; i < 5; i++) {
      expect(await httpGet(port, '/livez')).toEqual({ code: 200, body: 'ok\n' });
      expect((await httpGet(port, '/readyz')).code).toBe(503);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(procStat(child)?.state).not.toBe('Z');
    expect(run.stdout()).not.toContain('app-got-TERM');
    expect(await status(ready)).toMatchObject({ exitCode: 1, stdout: 'not ready: stopping: the stop signal arrived' });
    const end = await run.done();
    expect(end.exitCode).toBe(0);
    expect(end.stdout).toContain('app-got-TERM');
    expect(end.durationMs).toBeGreaterThanOrEqual(6000);
  }, 40_000);

  it('shares the port with --metrics, and answers bad requests with a status', async () => {
    const port = await freePort();
    const run = await startPid1(['--health', `127.0.0.1:${port}`, '--metrics', `127.0.0.1:${port}`, '-d', '3', '--', 'sleep', '30']);
    await answered(port, '/readyz', 200);
    const metrics = await httpGet(port, '/metrics');
    expect(metrics.code).toBe(200);
    expect(metrics.body).toMatch(/^sexton_ready 1$/m);
    expect((await httpGet(port, '/nope')).code).toBe(404);
    run.signal('SIGTERM');
    expect((await httpGet(port, '/readyz')).code).toBe(503);
    // Metrics come from the shared snapshot, at most a second old.
    await until(async () => /^sexton_ready 0$/m.test((await httpGet(port, '/metrics')).body), 5000, 'sexton_ready 0');
    expect((await run.done()).exitCode).toBe(143);
  }, 30_000);
});

describe('an early probe', () => {
  it('gets an answer: the status socket opens at the spawn, so `sexton status --ready` run at once by the app answers', async () => {
    // It used to open 100 ms later, and a status asked at once found nobody 8 times in 9 (exit 3).
    const script = `${process.execPath} ${SEXTON} status --ready; echo status-exit=$?`;
    for (let round = 0; round < 3; round++) {
      const run = await startPid1(['--', 'sh', '-c', script]);
      const end = await run.done();
      expect(end.stdout).toContain('ready: the main child runs\nstatus-exit=0');
    }
  }, 60_000);
});

describe('--ready-when notify', () => {
  it('is not ready until the app sends READY=1, late; STATUS= and STOPPING=1 are heard', async () => {
    const port = await freePort();
    const send = fixtures.path('notify-send');
    const app = `echo app-up; ${send} 'STATUS=warming up' sleep=1500 'READY=1\nSTATUS=serving'; echo sent; sleep 1; ${send} STOPPING=1; exec sleep 30`;
    const run = await startPid1(['-v', '--health', `127.0.0.1:${port}`, '--ready-when', 'notify', '--', 'sh', '-c', app]);
    await run.waitFor('app-up');
    const early = await answered(port, '/readyz', 503);
    expect(early.body).toMatch(/^not ready: (starting|waiting for READY=1 from the app)/);
    expect(run.stdout()).not.toContain('sent');
    await run.waitFor('sent');
    expect((await answered(port, '/readyz', 200)).body).toBe('ok: the app sent READY=1 (app: serving)\n');
    expect((await answered(port, '/readyz', 503)).body).toBe('not ready: stopping: the app sent STOPPING=1 (app: serving)\n');
    expect((await httpGet(port, '/livez')).code).toBe(200);
    run.signal('SIGTERM');
    const end = await run.done();
    expect(end.exitCode).toBe(143);
    expect(end.stderr).toContain('the app is ready (READY=1)');
  }, 30_000);

  it('counts and ignores garbage, oversized datagrams and descriptors, and still hears READY=1', async () => {
    const port = await freePort();
    const send = fixtures.path('notify-send');
    const garbage = ['binary', 'no equals sign', '=1', 'big=5000', 'big=70000', 'lower=case', '', 'fd:STATUS=with a descriptor'];
    const args = garbage.map((w) => `'${w}'`).join(' ');
    const socket = `@sexton-health-test.${process.pid}.${port}`;
    const app = `${send} ${args}; ${send} READY=1; echo sent; exec sleep 30`;
    const run = await startPid1(['--health', `127.0.0.1:${port}`, '--ready-when', 'notify', '--status-socket', socket, '--', 'sh', '-c', app]);
    await run.waitFor('sent');
    expect((await answered(port, '/readyz', 200)).body).toBe('ok: the app sent READY=1 (app: with a descriptor)\n');
    // A stranger sharing the network namespace (here: the host, outside sexton's PID namespace).
    const address = `@sexton-notify.${statSync(`/proc/${run.pid1}/ns/pid`).ino}.1`;
    execFileSync(send, ['STOPPING=1\nSTATUS=from a stranger'], { env: { NOTIFY_SOCKET: address } });
    const s = await until(async () => {
      const snap = await statusJson(socket, run.pid1);
      return snap?.health.notifications.foreign === 1 ? snap : undefined;
    }, 10_000, 'the foreign datagram counted');
    expect(s.health).toEqual({
      readyWhen: 'notify', live: true, ready: true, reason: 'the app sent READY=1 (app: with a descriptor)',
      notifications: { accepted: 2, malformed: 5, oversized: 2, foreign: 1, descriptors: 1 },
    });
    expect((await httpGet(port, '/readyz')).code).toBe(200);
    run.signal('SIGTERM');
    const end = await run.done();
    expect(end.exitCode).toBe(143);
    expect(end.stderr).toMatch(/ignored a malformed datagram from pid \d+ \(9 bytes\); more are counted, not logged/);
    expect(end.stderr).toContain('ignored a oversized datagram');
    expect(end.stderr).toContain('ignored a foreign datagram from outside the PID namespace');
  }, 30_000);
});
