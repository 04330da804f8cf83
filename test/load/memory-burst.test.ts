// Memory back after a burst of short-lived connections: 100 clients at once for 5 s, each a new
// connection per request, on /metrics, /readyz and the status socket alike, against sexton as
// PID 1 with 200 children. A minute later RssAnon is back within 2 MiB of its rest, with no
// idle timer of sexton's to get there (src/init/memory.ts settles after the last answer).
// Heavy (three and a half minutes): a file of its own, in the load tier (run alone, one file at
// a time). The peak and the minute-later reading are in the test's output.
import { statSync } from 'node:fs';
import * as net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { statusKb } from '../support/faults';
import { freePort } from '../support/http';
import { requireBuilt, startPid1, until } from '../support/pid1';

const MiB = 1024;  // /proc/PID/status counts in kB
const CLIENTS = 100;
const BURST_MS = 5000;
/** RssAnon must be back within this of its rest... */
const BACK_WITHIN_KB = 2 * MiB;
/** ...this long after the burst. */
const AFTER_MS = 60_000;

beforeAll(requireBuilt);

const rssAnonKb = (pid: number): number => {
  const kb = statusKb(pid, 'RssAnon');
  if (kb === undefined) throw new Error(`no RssAnon in /proc/${pid}/status: sexton is gone`);
  return kb;
};

/** One request on a new connection; true when an answer came. */
function once(connect: () => net.Socket, request?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect();
    let answered = false;
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('connect', () => request && socket.write(request));
    socket.on('data', () => (answered = true));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answered));
  });
}

/** CLIENTS loops, each a new connection per request, for BURST_MS; the answers counted. */
async function burst(connect: () => net.Socket, request?: string): Promise<{ answers: number; failed: number }> {
  const stopAt = Date.now() + BURST_MS;
  let answers = 0;
  let failed = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (Date.now() < stopAt) {
      if (await once(connect, request)) answers++;
      else failed++;
    }
  }));
  return { answers, failed };
}

/** RssAnon at rest: the same for two readings a second apart (the start-up release is done). */
async function restKb(pid: number): Promise<number> {
  let last = -1;
  let rest = 0;
  await until(async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    rest = rssAnonKb(pid);
    const steady = Math.abs(rest - last) < 64;
    last = rest;
    return steady;
  }, 30_000, 'RssAnon to settle');
  return rest;
}

const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: burst\r\nConnection: close\r\n\r\n`;

describe('memory back after a burst of short-lived connections', () => {
  it('on /metrics, /readyz and the status socket: RssAnon within 2 MiB of its rest a minute later', async () => {
    const port = await freePort();
    const children = `for i in $(seq 200); do sleep 100000 & done; echo ready; wait`;
    const run = await startPid1(['-v', '--metrics', `127.0.0.1:${port}`, '--health', `127.0.0.1:${port}`, '--', 'sh', '-c', children], { timeoutMs: 280_000 });
    await run.waitFor('ready');
    await until(() => run.stderr().includes(`metrics on http://127.0.0.1:${port}/metrics`), 15_000, 'the metrics server');
    const statusSocket = `\0sexton-status.${statSync(`/proc/${run.pid1}/ns/pid`).ino}`;
    const targets: [string, () => net.Socket, string?][] = [
      ['/metrics', () => net.connect(port, '127.0.0.1'), get('/metrics')],
      ['/readyz', () => net.connect(port, '127.0.0.1'), get('/readyz')],
      ['the status socket', () => net.connect(statusSocket)],
    ];
    for (const [name, connect, request] of targets) {
      const rest = await restKb(run.pid1);
      const { answers, failed } = await burst(connect, request);
      const peak = rssAnonKb(run.pid1);
      const ended = Date.now();
      // The settle gives it back a few seconds after the last answer; what counts is the reading
      // a minute on (V8's memory reducer and nothing of sexton's may run in between).
      let backAfterMs: number | undefined;
      await until(() => {
        if (backAfterMs === undefined && rssAnonKb(run.pid1) <= rest + BACK_WITHIN_KB) backAfterMs = Date.now() - ended;
        return Date.now() - ended >= AFTER_MS;
      }, AFTER_MS + 5000, `a minute after the burst on ${name}`);
      const after = rssAnonKb(run.pid1);
      const back = backAfterMs === undefined ? 'never' : `${(backAfterMs / 1000).toFixed(1)} s`;
      const line = `${name}: ${answers} answers (${failed} failed); RssAnon rest ${rest} kB, ${peak} kB at the end, ` +
        `${after} kB (+${after - rest}) a minute later; first within ${BACK_WITHIN_KB} kB of rest after ${back}`;
      console.log(line);
      expect(answers).toBeGreaterThan(CLIENTS);
      expect(after - rest, line).toBeLessThanOrEqual(BACK_WITHIN_KB);
    }
  }, 300_000);
});
