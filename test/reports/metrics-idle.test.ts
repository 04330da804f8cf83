// --metrics and the idle promise: Node's HTTP server checks request and header
// timeouts on a 30 s interval timer, which woke an idle sexton twice a minute. sexton limits each
// connection with a timer of its own instead (src/report/exporters/prometheus.ts): nothing runs while
// nobody is connected, and a client that connects and sends nothing is still let go.
import { execFileSync } from 'node:child_process';
import * as net from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { freePort } from '../support/http';
import { requireBuilt, startPid1, sleep } from '../support/pid1';
import { readIfThere, switchesByThread } from '../support/processes';


/** Context switches of every thread of pid: an idle process has none. */
const switches = (pid: number) => [...switchesByThread(pid).values()].reduce((a, b) => a + b, 0);

const threadName = (pid: number, tid: number) => readIfThere(`/proc/${pid}/task/${tid}/comm`)?.trim() ?? '?';

/**
 * How long V8's memory reducer waits for its first GC once the start armed it (V8's flag, read from
 * this node): 8 s on Node 22 and 24, 30 s on Node 26. Its later waits are 8 s on every line.
 */
function reducerFirstDelayMs(): number {
  const options = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  const ms = /--gc-memory-reducer-start-delay-ms=(\d+)/.exec(options)?.[1];
  if (ms === undefined) throw new Error(`${process.execPath} --v8-options names no gc-memory-reducer-start-delay-ms`);
  return Number(ms);
}

beforeAll(requireBuilt);

it('an idle sexton serving metrics never wakes; a connection that sends nothing is closed after 10 s', async () => {
  const port = await freePort();
  const run = await startPid1(['-v', '--metrics', `127.0.0.1:${port}`, '--', 'sleep', '100000'], { timeoutMs: 140_000 });
  const started = Date.now();
  await run.waitFor(`metrics on http://127.0.0.1:${port}/metrics`, 'stderr');
  // Settled: past the page release that follows listening, and past V8's memory reducer, which
  // may run one GC after start (measured: ~80 context switches over a second, then none). It arms
  // itself when the old generation grows by 1 MiB before any full GC, which the start may or may
  // not do (the code cache's bytecode, what the JIT compiles meanwhile), and then its first GC
  // comes the line's first delay later: 30 s on Node 26, where a settling of 10 s quiet from 10 s
  // on once let it fall into the window (127 switches, CI under load). So: past that first delay,
  // then 10 s in which sexton did not run at all (the reducer's later waits are 8 s), bounded; a
  // sexton that woke every few seconds never gets there.
  const firstDelayMs = reducerFirstDelayMs();
  await sleep(Math.max(1000, firstDelayMs + 2000 - (Date.now() - started)));
  for (let last = switches(run.pid1), quietSince = Date.now(); Date.now() - quietSince < 10_000;) {
    expect(Date.now() - started, 'sexton never stayed still for 10 s').toBeLessThan(firstDelayMs + 50_000);
    await sleep(1000);
    const now = switches(run.pid1);
    if (now !== last) [last, quietSince] = [now, Date.now()];
  }
  const before = switchesByThread(run.pid1);
  await sleep(32_000);  // past the 30 s of Node's connection checker
  const woke = [...switchesByThread(run.pid1)].filter(([tid, n]) => n !== (before.get(tid) ?? 0))
    .map(([tid, n]) => `${threadName(run.pid1, tid)} (${tid}) +${n - (before.get(tid) ?? 0)}`);
  expect(woke, 'threads of sexton that ran while idle').toEqual([]);

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
}, 150_000);
