// Every listener bounded: the metrics HTTP server and the status socket, fuzzed with
// sexton as a real PID 1 and real sockets on loopback (ports the test picks) or the abstract Unix
// namespace. Floods past the cap run under `prlimit --nofile=1024`, where 1,100 held connections
// used to take every descriptor PID 1 had and lose the stop that followed.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ownSocketInodes, status } from '../support/observability';
import { freePort } from '../support/http';
import { requireBuilt, startPid1, sleep, until, zombiesUnder } from '../support/pid1';
import { defaultStatusSocket, exchange, flood, Flood, openFds, stackLines, statusCodes } from '../support/listeners';

/** The connection cap and per-connection deadline of docs/operations.md's table. */
const CAP = 32;
const DEADLINE_MS = 10_000;
const NOFILE = ['prlimit', '--nofile=1024', '--'];
/**
 * Ignores TERM (only the grace period's SIGKILL stops it), makes an orphan every 50 ms for
 * PID 1 to reap, and says "usr1" for each SIGUSR1 forwarded to it.
 */
const STUBBORN_CHILD = ['sh', '-c', "trap '' TERM; trap 'echo usr1' USR1; echo ready; while :; do (sleep 0.01 &); sleep 0.05; done"];

beforeAll(requireBuilt);
const floods: Flood[] = [];
afterEach(() => {
  for (const f of floods.splice(0)) f.end();
});

/** sexton as PID 1 under RLIMIT_NOFILE 1024 with the stubborn child; stop with a 2 s grace period. */
async function stubbornSexton(args: string[]) {
  const run = await startPid1(['-v', '--grace', '2', ...args, '--', ...STUBBORN_CHILD], { launcher: NOFILE, timeoutMs: 60_000 });
  await run.waitFor('ready');
  return run;
}

/** TERM; the stop must run to its end: the grace period's SIGKILL, then the exit. */
async function stopsWithinGrace(run: Awaited<ReturnType<typeof stubbornSexton>>) {
  const termAt = Date.now();
  run.signal('SIGTERM');
  const result = await run.done();
  const stopMs = Date.now() - termAt;
  expect(result.stderr).toContain('received TERM');
  expect(result.stderr).toMatch(/grace period over/);
  expect(stopMs).toBeGreaterThanOrEqual(1900);
  expect(stopMs).toBeLessThan(12_000);
  expect(stackLines(result.stderr), result.stderr).toEqual([]);
  return result;
}

/** Reaping and forwarding go on: a USR1 reaches the child, and orphans do not pile up as zombies. */
async function stillReapsAndForwards(run: Awaited<ReturnType<typeof stubbornSexton>>) {
  const said = run.stdout().split('usr1').length;
  run.signal('SIGUSR1');
  await until(() => run.stdout().split('usr1').length > said, 10_000, 'the child to hear SIGUSR1');
  let most = 0;
  for (let i = 0; i < 20; i++) {
    most = Math.max(most, zombiesUnder(run.pid1).length);
    await sleep(25);
  }
  expect(most, 'zombies waiting for PID 1').toBeLessThan(5);
}

describe('the metrics server', () => {
  it('holds at most its cap of connections under a flood of 1,100 at RLIMIT_NOFILE 1024, and the stop is not lost', async () => {
    const port = await freePort();
    const run = await stubbornSexton(['--metrics', `127.0.0.1:${port}`]);
    await run.waitFor(`metrics on http://127.0.0.1:${port}/metrics`, 'stderr');
    const idle = openFds(run.pid1);
    const held = await flood({ port }, 1100);
    floods.push(held);
    // All but the cap are accepted and closed at once.
    await until(() => held.closedByServer() >= 1100 - CAP, 20_000, `sexton to close all but ${CAP} of 1,100 connections`);
    const most = openFds(run.pid1);
    expect(most - idle, 'descriptors the flood holds in sexton').toBeLessThanOrEqual(CAP + 1);
    // The other listener, and PID 1's own work, still have descriptors.
    const answer = await status(['--json', '--socket', `@${defaultStatusSocket(run.pid1).slice(1)}`, '--pid', String(run.pid1)]);
    expect(answer.exitCode, answer.stderr).toBe(0);
    await stillReapsAndForwards(run);
    const result = await stopsWithinGrace(run);
    // One line for the refusals, however many there were.
    expect(result.stderr.match(/refused connections at the cap/g)?.length ?? 0).toBeGreaterThanOrEqual(1);
    expect(result.stderr.match(/refused connections at the cap/g)?.length ?? 0).toBeLessThanOrEqual(2);
  }, 90_000);

  it('shrinks its cap to what RLIMIT_NOFILE 64 leaves, keeping the stop reserve free under a flood', async () => {
    const port = await freePort();
    const run = await startPid1(['-v', '--grace', '2', '--metrics', `127.0.0.1:${port}`, '--', ...STUBBORN_CHILD],
      { launcher: ['prlimit', '--nofile=64', '--'], timeoutMs: 60_000 });
    await run.waitFor(`metrics on http://127.0.0.1:${port}/metrics`, 'stderr');
    const cap = Number(/room for (\d+) connection\(s\) at once, not 32, with 16 descriptors kept for the stop/.exec(run.stderr())?.[1]);
    expect(cap).toBeGreaterThanOrEqual(1);
    expect(cap).toBeLessThan(CAP);
    const held = await flood({ port }, 300);
    floods.push(held);
    await until(() => held.closedByServer() >= 300 - cap, 20_000, `sexton to close all but ${cap} of 300 connections`);
    expect(64 - openFds(run.pid1), 'descriptors left free').toBeGreaterThanOrEqual(16);
    await stillReapsAndForwards(run);
    await stopsWithinGrace(run);
  }, 90_000);

  it('answers malformed, oversized, pipelined and bodied requests with one status and a close; lets slow clients go at the deadline', async () => {
    const port = await freePort();
    const run = await startPid1(['-v', '--metrics', `127.0.0.1:${port}`, '--', 'sleep', '1000'], { timeoutMs: 60_000 });
    await run.waitFor(`metrics on http://127.0.0.1:${port}/metrics`, 'stderr');
    const idle = openFds(run.pid1);
    const target = { port };
    const get = 'GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n';
    const started = Date.now();
    const [garbage, binary, version, bigHeader, hugeLine, manyHeaders, allHeaders, oneHeaderTooMany, post, body, chunked, pipelined, head, unknown, slowloris, keptAlive] = await Promise.all([
      exchange(target, ['GARBAGE\r\n\r\n']),
      exchange(target, [Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256))]),
      exchange(target, ['GET /metrics HTTP/9.9\r\nHost: t\r\n\r\n']),
      exchange(target, [`GET /metrics HTTP/1.1\r\nHost: t\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`]),
      exchange(target, [`GET /${'a'.repeat(1 << 20)}`]),
      exchange(target, [`GET /metrics HTTP/1.1\r\nHost: t\r\n${'X-A: b\r\n'.repeat(200)}Connection: close\r\n\r\n`]),
      exchange(target, [`GET /metrics HTTP/1.1\r\nHost: t\r\n${'X-A: b\r\n'.repeat(62)}Connection: close\r\n\r\n`]),
      exchange(target, [`GET /metrics HTTP/1.1\r\nHost: t\r\n${'X-A: b\r\n'.repeat(63)}Connection: close\r\n\r\n`]),
      exchange(target, ['POST /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc']),
      exchange(target, ['GET /metrics HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000\r\n\r\n', 'x'.repeat(1000)]),
      exchange(target, ['GET /metrics HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n']),
      exchange(target, [get.repeat(300)], { timeoutMs: 15_000 }),
      exchange(target, ['HEAD /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n']),
      exchange(target, ['GET /secret HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n']),
      // A header line every 500 ms, never the end of the headers.
      exchange(target, ['GET /metrics HTTP/1.1\r\n', ...Array.from({ length: 40 }, (_, i) => `X-${i}: y\r\n`)], { gapMs: 500, timeoutMs: 25_000 }),
      // One answer, then the connection kept open and silent.
      exchange(target, [get], { timeoutMs: 25_000 }),
    ]);
    const quick = (e: typeof garbage, code: number, what: string) => {
      expect(statusCodes(e.received), what).toEqual([code]);
      expect(e.closedAfterMs, `${what}: closed by sexton`).toBeDefined();
      expect(e.closedAfterMs as number, what).toBeLessThan(5000);
    };
    quick(garbage, 400, 'garbage');
    quick(binary, 400, 'binary');
    quick(version, 400, 'HTTP/9.9');
    quick(bigHeader, 431, '9 KiB of headers');
    quick(hugeLine, 431, 'a 1 MiB request line');
    quick(post, 405, 'POST');
    quick(body, 413, 'a 1 MB body');
    quick(chunked, 413, 'a chunked body');
    quick(unknown, 404, 'an unknown path');
    // sexton's limit of 64 header lines, the same on every Node line (Node's own parser differs).
    quick(manyHeaders, 431, '202 header lines');
    quick(oneHeaderTooMany, 431, '65 header lines');
    expect(statusCodes(allHeaders.received), '64 header lines').toEqual([200]);
    expect(head.received).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: \d+\r\n[\s\S]*\r\n\r\n$/);
    // 300 pipelined requests: 100 answered, the last of them saying Connection: close, then closed.
    expect(statusCodes(pipelined.received)).toEqual(Array(100).fill(200));
    const lastHead = pipelined.received.slice(pipelined.received.lastIndexOf('HTTP/1.1 ')).split('\r\n\r\n')[0];
    expect(lastHead).toMatch(/\r\nConnection: close\r\n/);
    expect(pipelined.closedAfterMs).toBeDefined();
    for (const [e, what] of [[slowloris, 'slowloris'], [keptAlive, 'a silent kept-alive connection']] as const) {
      expect(e.closedAfterMs, `${what}: closed by sexton`).toBeDefined();
      expect(e.closedAfterMs as number, what).toBeGreaterThanOrEqual(DEADLINE_MS - 500);
      expect(e.closedAfterMs as number, what).toBeLessThan(DEADLINE_MS + 5000);
    }
    expect(statusCodes(keptAlive.received)).toEqual([200]);
    expect(Date.now() - started).toBeLessThan(25_000);
    // And after all that: a plain scrape, nothing held, nothing but one-line messages.
    const scrape = await exchange(target, ['GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n']);
    expect(statusCodes(scrape.received)).toEqual([200]);
    expect(scrape.received).toContain('sexton_build_info{version=');
    await until(() => openFds(run.pid1) <= idle, 5000, 'sexton to hold no connection');
    run.signal('SIGTERM');
    const result = await run.done();
    expect(result.exitCode).toBe(143);
    expect(stackLines(result.stderr), result.stderr).toEqual([]);
  }, 90_000);
});

describe('the status socket', () => {
  it('answers a flood of 1,100 callers one at a time, holds no more than one, ignores what they send, and the stop is not lost', async () => {
    const run = await stubbornSexton([]);
    const path = defaultStatusSocket(run.pid1);
    await until(() => exchange({ path }, []).then((e) => e.received.includes('"phase"')), 10_000, 'the status socket');
    // Its own sockets (above fd 2: its stdio may be the test's socketpairs): the listener, and the caller being answered.
    const sockets = () => ownSocketInodes(run.pid1).length;
    const idle = sockets();
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, sockets())), 2);
    const callers = await flood({ path }, 1100);
    floods.push(callers);
    await until(() => callers.closedByServer() >= 1100, 20_000, 'sexton to answer and close all 1,100 callers');
    // Garbage, a megabyte of it, and a caller that never reads: none of it is read or waited for.
    const [garbage, big, silent] = await Promise.all([
      exchange({ path }, ['GET / HTTP/1.1\r\n\r\n\0\0\0']),
      exchange({ path }, [Buffer.alloc(1 << 20, 0x41)]),
      exchange({ path }, []),
    ]);
    clearInterval(sampler);
    expect(idle, 'the listener').toBe(1);
    expect(most - idle, 'connections the callers held in sexton').toBeLessThanOrEqual(1);
    expect(JSON.parse(silent.received)).toMatchObject({ pid: 1, phase: 'running' });
    // A caller that wrote may lose the answer to a reset (sexton closed with its bytes unread);
    // it is closed either way.
    for (const e of [silent, garbage, big]) expect(e.closedAfterMs).toBeDefined();
    await stillReapsAndForwards(run);
    await stopsWithinGrace(run);
  }, 90_000);
});
