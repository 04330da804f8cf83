// The stop sequence: drain delay, grace period, whole-tree termination, survivor report.
// sexton runs as PID 1 of a fresh PID namespace, except in the subreaper test. Timing assertions
// have strict lower bounds and generous upper bounds (the machine is noisy).
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { fixture, requireBuilt, requireTini, startPid1, SEXTON, TINI, until } from '../support/pid1';
import { isAlive, logLines, parentOf, readyPids, signalStamps } from '../support/shutdown';
import { track } from '../support/processes';

const NODE = process.execPath;
const SIGNALS = fixture('shutdown-signals.mjs');
let scratch = '';

beforeAll(() => {
  requireBuilt();
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-shutdown-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test('a child that ignores TERM is SIGKILLed at the grace period, not before: exit 137, survivors reported', async () => {
  const script = fixture('shutdown-ignore-term.sh');
  const run = await startPid1(['-t', '1', '--', 'sh', script]);
  const [shPid, sleepPid] = await readyPids(run);

  const sent = Date.now();
  run.signal('SIGTERM');
  const result = await run.done();
  const took = Date.now() - sent;

  expect(result.exitCode).toBe(137);
  expect(took).toBeGreaterThanOrEqual(1000);
  expect(took).toBeLessThan(5000);
  // Default verbosity: one line when shutdown starts, one per survivor, a summary at exit.
  const lines = logLines(result.stderr);
  expect(lines[0]).toBe('received TERM: stopping grace period 1s');
  expect(lines.filter((l) => l.startsWith('grace period over:')).sort()).toEqual([
    `grace period over: killing pid ${shPid} (sh ${script}), state S sleeping`,
    `grace period over: killing pid ${sleepPid} (sleep 60), state S sleeping`,
  ].sort());
  expect(lines.at(-1)).toMatch(/^exiting with 137: .*killed 2 survivor\(s\)$/);
  expect(lines).toHaveLength(4);
});

test('a cooperative child exits on TERM and sexton exits right after it, well within the grace period', async () => {
  const run = await startPid1(['--', NODE, SIGNALS, 'exit-after', '200']);  // default grace: 10 s
  await readyPids(run);

  const sent = Date.now();
  run.signal('SIGTERM');
  const result = await run.done();
  const exited = Date.now();

  expect(result.exitCode).toBe(0);
  const [received] = signalStamps(result.stdout, 'SIGTERM');
  expect(received).toBeGreaterThanOrEqual(sent);
  expect(exited - sent).toBeGreaterThanOrEqual(200);  // the child's own clean-up time
  expect(exited - (received + 200)).toBeLessThan(2000);  // sexton did not wait for the grace period
  expect(result.stderr).not.toContain('killing');
});

test('a double-forked setsid daemon finishes its 0.5 s flush on TERM under sexton; under tini it is lost', async () => {
  requireTini();
  const launcher = fixture('shutdown-launch-daemon.sh');
  const stopWith = async (argv: string[], raw: boolean, out: string) => {
    const run = await startPid1([...argv, 'sh', launcher, NODE, out], { raw });
    await readyPids(run);
    run.signal('SIGTERM');
    const result = await run.done();
    return { result, written: existsSync(out) ? readFileSync(out, 'utf8') : '(missing)' };
  };

  const sexton = await stopWith(['-t', '5', '--'], false, path.join(scratch, 'under-sexton'));
  expect(sexton.written).toBe('flushing\ncomplete\n');
  expect(sexton.result.exitCode).toBe(143);  // the launcher's status: killed by TERM
  expect(sexton.result.stderr).toContain('main child is gone; 1 process(es) left: sending TERM');
  expect(sexton.result.stderr).not.toContain('killing');

  // tini exits with its child; the kernel then SIGKILLs the rest of the namespace mid-flush.
  const tini = await stopWith([TINI, '--'], true, path.join(scratch, 'under-tini'));
  expect(tini.result.exitCode).toBe(143);
  expect(tini.written).not.toBe('flushing\ncomplete\n');
});

test('the main child exits 3 by itself: a TERM-ignoring leftover is killed at a fresh grace period, exit 3', async () => {
  const stamp = path.join(scratch, 'leftover-exit');
  const run = await startPid1(['-t', '1', '--', 'sh', fixture('shutdown-leftover.sh'), stamp]);
  const [leftover] = await readyPids(run);
  const result = await run.done();
  const mainExited = Number(readFileSync(stamp, 'utf8'));
  const took = Date.now() - mainExited;

  expect(result.exitCode).toBe(3);
  expect(took).toBeGreaterThanOrEqual(1000);
  expect(took).toBeLessThan(5000);
  const lines = logLines(result.stderr);
  expect(lines).toContain('main child is gone; 1 process(es) left: sending TERM, grace period 1s');
  expect(lines).toContain(`grace period over: killing pid ${leftover} (sleep 60), state S sleeping`);
  expect(lines.at(-1)).toMatch(/^exiting with 3: .*killed 1 survivor\(s\)$/);
});

test('drain delay: with -d 1 the child gets TERM no earlier than 1 s after sexton did', async () => {
  const run = await startPid1(['-d', '1', '-t', '5', '--', NODE, SIGNALS, 'exit-after', '0']);
  await readyPids(run);

  const sent = Date.now();
  run.signal('SIGTERM');
  const result = await run.done();

  const [received] = signalStamps(result.stdout, 'SIGTERM');
  expect(received - sent).toBeGreaterThanOrEqual(1000);
  expect(received - sent).toBeLessThan(4000);
  expect(result.exitCode).toBe(0);
  expect(logLines(result.stderr)[0]).toBe('received TERM: stopping after a 1s drain delay, grace period 5s');
});

test('drain delay: a second TERM during the delay skips the rest of it; the child gets TERM at once, only once', async () => {
  const run = await startPid1(['-d', '5', '-t', '5', '--', NODE, SIGNALS, 'exit-after', '300']);
  await readyPids(run);

  const first = Date.now();
  run.signal('SIGTERM');
  await run.waitFor('drain delay', 'stderr');
  // Still draining: no wait needed to show it. The child's one TERM, stamped no earlier than
  // the second was sent (below), proves none went out before it.
  expect(signalStamps(run.stdout(), 'SIGTERM')).toEqual([]);
  const second = Date.now();
  run.signal('SIGTERM');
  const result = await run.done();

  const stamps = signalStamps(result.stdout, 'SIGTERM');
  expect(stamps).toHaveLength(1);
  expect(stamps[0]).toBeGreaterThanOrEqual(second);
  expect(stamps[0] - first).toBeLessThan(4000);  // long before the 5 s delay would have ended
  expect(result.exitCode).toBe(0);
  expect(logLines(result.stderr)).toContain('received TERM again: skipping the rest of the drain delay');
});

test('the survivor report shows a SIGSTOPped process with state T', async () => {
  const run = await startPid1(['-t', '1', '--', 'sh', fixture('shutdown-stopped.sh')]);
  const [stopped] = await readyPids(run);
  run.signal('SIGTERM');
  const result = await run.done();

  expect(result.exitCode).toBe(143);  // the main child died of TERM; the stopped one was killed later
  expect(logLines(result.stderr), result.stderr).toContain(`grace period over: killing pid ${stopped} (sleep 60), state T stopped`);
});

test('as a subreaper (not PID 1), TERM ends every descendant, re-parented orphan included, and nothing else', async () => {
  const outsider = execa('sleep', ['63'], { reject: false, stdin: 'ignore' });
  track(outsider.pid);
  const sexton = execa(NODE, [SEXTON, '-v', '-t', '5', '--', 'sh', fixture('shutdown-subtree.sh')], {
    reject: false, stdin: 'ignore', timeout: 20_000, killSignal: 'SIGKILL',
  });
  track(sexton.pid);
  let out = '';
  sexton.stdout?.on('data', (d) => (out += d));
  const [child, orphan] = await until(() => /^ready (\d+) (\d+)$/m.exec(out)?.slice(1).map(Number), 10_000, 'subtree ready');
  track(child);
  track(orphan);
  expect(parentOf(orphan)).toBe(sexton.pid);  // re-parented to sexton, the subreaper

  const sent = Date.now();
  process.kill(sexton.pid as number, 'SIGTERM');
  const result = await sexton;

  expect(result.exitCode).toBe(143);  // the child's TERM, reported; sexton never dies of it
  expect(Date.now() - sent).toBeLessThan(4000);  // they went on TERM, not at the 5 s SIGKILL
  expect(isAlive(child)).toBe(false);
  expect(isAlive(orphan)).toBe(false);
  expect(isAlive(outsider.pid as number)).toBe(true);
  // The re-parented orphan has no parent to stop it: it gets TERM along with the forwarded stop
  // signal. (The child's own child gets it then too if the child already died of its TERM,
  // or once the main child is gone.)
  expect(result.stderr).toMatch(new RegExp(`sending TERM to [12] re-parented process\\(es\\):.*\\b${orphan}\\b`));
});

test('-s INT: INT starts the shutdown and its grace period; TERM, before and after, is only forwarded', async () => {
  // -vv: JS hears of every signal and logs each forward, so the TERM's line is the event after
  // which a stop it started would already have said so (one handler logs both, in order).
  const run = await startPid1(['-vv', '-s', 'INT', '-t', '1', '--', NODE, SIGNALS, 'ignore']);
  await readyPids(run);

  run.signal('SIGTERM');
  await run.waitFor(/^SIGTERM /m);
  await run.waitFor(/forwarded TERM to pid \d+/, 'stderr');
  expect(run.proc.exitCode).toBeNull();
  expect(run.stderr()).not.toContain('stopping');

  const sent = Date.now();
  run.signal('SIGINT');
  await run.waitFor(/^SIGINT /m);
  await run.waitFor('received INT: stopping grace period 1s', 'stderr');
  run.signal('SIGTERM');
  await until(() => signalStamps(run.stdout(), 'SIGTERM').length === 2, 5000, 'the second TERM to be forwarded');
  const result = await run.done();
  const took = Date.now() - sent;

  expect(result.exitCode).toBe(137);
  expect(took).toBeGreaterThanOrEqual(1000);
  expect(took).toBeLessThan(5000);
  expect(logLines(result.stderr).filter((l) => /^received \w+: stopping/.test(l))).toHaveLength(1);
  expect(result.stderr).toMatch(/killing pid \d+ \(\S+ \S+shutdown-signals\.mjs ignore\)/);
});
