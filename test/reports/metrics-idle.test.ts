// --metrics and the idle promise: Node's HTTP server checks request and header
// timeouts on a 30 s interval timer, which woke an idle sexton twice a minute. sexton limits each
// connection with a timer of its own instead (src/report/exporters/prometheus.ts): nothing runs while
// nobody is connected, and a client that connects and sends nothing is still let go.
import * as net from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/http';
import { requireBuilt, startPid1, sleep } from '../support/pid1';
import { switchesByThread } from '../support/processes';


/** Context switches of every thread of pid: an idle process has none. */
const switches = (pid: number) => [...switchesByThread(pid).values()].reduce((a, b) => a + b, 0);

beforeAll(requireBuilt);

it('an idle sexton serving metrics never wakes; a connection that sends nothing is closed after 10 s', async () => {
  const port = await freePort();
  const run = await startPid1(['-v', '--metrics', `127.0.0.1:${port}`, '--', 'sleep', '100000'], { timeoutMs: 120_000 });
  const started = Date.now();
  await run.waitFor(`metrics on http://127.0.0.1:${port}/metrics`, 'stderr');
  // Settled: past the page release that follows listening, and past V8's memory reducer, which
  // runs one GC ~8 s after start (measured: ~80 context switches over a second, then none). It
  // arms itself when the old generation grows by 1 MiB before any full GC, as the code cache's
  // bytecode makes it (src/boot/loader.ts); without the cache the first full GC came first.
  // Under load start-up, and so that GC, comes later: settled means 10 s in which sexton did not
  // run at all (the reducer waits 8 s), bounded; a sexton that woke every few seconds never gets there.
  await sleep(Math.max(1000, 10_000 - (Date.now() - started)));
  for (let last = switches(run.pid1), quietSince = Date.now(); Date.now() - quietSince < 10_000;) {
    expect(Date.now() - started, 'sexton never stayed still for 10 s').toBeLessThan(60_000);
    await sleep(1000);
    const now = switches(run.pid1);
    if (now !== last) [last, quietSince] = [now, Date.now()];
  }
  const before = switches(run.pid1);
  await sleep(32_000);  // past the 30 s of Node's connection checker
  expect(switches(run.pid1) - before, 'context switches of sexton while idle').toBe(0);

  const opened = Date.now();
  const socket = net.connect(port, '127.0.0.1');
  const closedAfterMs = await new Promise<number>((resolve, reject) => {
    socket.on('close', () => resolve(Date.now() - opened));
    socket.on('error', () => undefined);  // a reset also ends it: 'close' follows
    setTimeout(() => reject(new Error('the silent connection was still open after 20 s')), 20_000);
  });
  socket.destroy();
  expect(closedAfterMs).toBeGreaterThanOrEqual(9_500);
  expect(closedAfterMs).toBeLessThan(15_000);
}, 130_000);
