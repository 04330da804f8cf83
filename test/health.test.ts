// --health and --ready-when (issue 24), with sexton as a real PID 1: /readyz follows the stop
// signal at once while /livez stays up and the child is left alone for the drain; readiness by
// sd_notify from a child that says READY=1 late, and from one that sends garbage.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileFixtures, CompiledFixtures } from './support/faults';
import { eventually, freePort, statusJson } from './support/observability';
import { childrenOf, procStat, requireBuilt, runAsPid1 } from './support/pid1';

/** One GET on a fresh connection (as kubelet probes): status code and body. */
export function get(port: number, path: string, timeoutMs = 5000): Promise<{ code: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ code: res.statusCode as number, body }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer on ${path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

async function answered(port: number, path: string, code: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await get(port, path).catch(() => undefined);
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
    const run = await runAsPid1(['--health', `127.0.0.1:${port}`, '--drain-delay', '3', '--', 'sh', '-c', app]);
    await run.waitFor('app-up');
    expect((await answered(port, '/readyz', 200)).body).toBe('ok: ready\n');
    expect(await get(port, '/livez')).toEqual({ code: 200, body: 'ok\n' });
    const [child] = childrenOf(run.pid1);

    const sent = performance.now();
    run.signal('SIGTERM');
    // The first probe made after the signal already fails: the handler's counter is read per
    // request, whatever JS has heard of yet.
    const first = await get(port, '/readyz');
    const latencyMs = performance.now() - sent;
    expect(first.code).toBe(503);
    expect(first.body).toBe('not ready: stopping: the stop signal arrived\n');
    console.log(`readyz 503 answered ${latencyMs.toFixed(1)} ms after the TERM was sent`);
    expect(latencyMs).toBeLessThan(1000);  // the 50 ms of the issue, with room for a loaded machine

    // The drain: sexton is live, the app still runs and has not heard of the stop.
    for (let i = 0; i < 5; i++) {
      expect(await get(port, '/livez')).toEqual({ code: 200, body: 'ok\n' });
      expect((await get(port, '/readyz')).code).toBe(503);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(procStat(child)?.state).not.toBe('Z');
    expect(run.stdout()).not.toContain('app-got-TERM');
    const end = await run.done();
    expect(end.exitCode).toBe(0);
    expect(end.stdout).toContain('app-got-TERM');
    expect(end.durationMs).toBeGreaterThanOrEqual(3000);
  }, 30_000);

  it('shares the port with --metrics, and answers bad requests with a status', async () => {
    const port = await freePort();
    const run = await runAsPid1(['--health', `127.0.0.1:${port}`, '--metrics', `127.0.0.1:${port}`, '-d', '1', '--', 'sleep', '30']);
    await answered(port, '/readyz', 200);
    const metrics = await get(port, '/metrics');
    expect(metrics.code).toBe(200);
    expect(metrics.body).toMatch(/^sexton_ready 1$/m);
    expect((await get(port, '/nope')).code).toBe(404);
    run.signal('SIGTERM');
    expect((await get(port, '/metrics')).body).toMatch(/^sexton_ready 0$/m);
    expect((await run.done()).exitCode).toBe(143);
  }, 30_000);
});

describe('--ready-when notify', () => {
  it('is not ready until the app sends READY=1, late; STATUS= and STOPPING=1 are heard', async () => {
    const port = await freePort();
    const send = fixtures.path('notify-send');
    const app = `echo app-up; ${send} 'STATUS=warming up' sleep=1500 'READY=1\nSTATUS=serving'; echo sent; sleep 1; ${send} STOPPING=1; exec sleep 30`;
    const run = await runAsPid1(['-v', '--health', `127.0.0.1:${port}`, '--ready-when', 'notify', '--', 'sh', '-c', app]);
    await run.waitFor('app-up');
    const early = await answered(port, '/readyz', 503);
    expect(early.body).toMatch(/^not ready: (starting|waiting for READY=1 from the app)/);
    expect(run.stdout()).not.toContain('sent');
    await run.waitFor('sent');
    expect((await answered(port, '/readyz', 200)).body).toBe('ok: ready (app: serving)\n');
    expect((await answered(port, '/readyz', 503)).body).toBe('not ready: stopping: the app sent STOPPING=1 (app: serving)\n');
    expect((await get(port, '/livez')).code).toBe(200);
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
    const run = await runAsPid1(['--health', `127.0.0.1:${port}`, '--ready-when', 'notify', '--status-socket', socket, '--', 'sh', '-c', app]);
    await run.waitFor('sent');
    expect((await answered(port, '/readyz', 200)).body).toBe('ok: ready (app: with a descriptor)\n');
    // A stranger sharing the network namespace (here: the host, outside sexton's PID namespace).
    const address = `@sexton-notify.${statSync(`/proc/${run.pid1}/ns/pid`).ino}.1`;
    execFileSync(send, ['STOPPING=1\nSTATUS=from a stranger'], { env: { NOTIFY_SOCKET: address } });
    const s = await eventually(async () => {
      const snap = await statusJson(socket, run.pid1);
      return snap?.health.notifications.foreign === 1 ? snap : undefined;
    }, 10_000, 'the foreign datagram counted');
    expect(s.health).toEqual({
      readyWhen: 'notify', live: true, ready: true, reason: 'ready (app: with a descriptor)',
      notifications: { accepted: 2, malformed: 5, oversized: 2, foreign: 1, descriptors: 1 },
    });
    expect((await get(port, '/readyz')).code).toBe(200);
    run.signal('SIGTERM');
    const end = await run.done();
    expect(end.exitCode).toBe(143);
    expect(end.stderr).toMatch(/ignored a malformed datagram from pid \d+ \(9 bytes\); more are counted, not logged/);
    expect(end.stderr).toContain('ignored a oversized datagram');
    expect(end.stderr).toContain('ignored a foreign datagram from outside the PID namespace');
  }, 30_000);
});
