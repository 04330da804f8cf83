// Every catchable signal sent to sexton reaches its child, rewrites and drops
// work, --pgroup and --pdeath work, forwarding and reaping go on while sexton's JS thread is
// blocked, SIGUSR1 never opens Node's inspector, sexton's own SIGPIPE stays its own, and a real
// crash inside sexton stays a crash. Each test runs sexton as PID 1 of a fresh PID namespace,
// except the --pdeath one, where sexton must have a parent that can die.
import { execa } from 'execa';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, expect, test } from 'vitest';
import { fixture, requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { deliveries, inspectorOpened, RTMAX, RTMIN, sendAndAwait, SIG, trapChild } from '../support/signals';
import { childrenOf } from '../../src/harness/namespace';
import { procStat } from '../support/processes';

const { SIGTERM, SIGUSR1, SIGUSR2, SIGSEGV, SIGPIPE } = SIG;

beforeAll(async () => {
  requireBuilt();
  // The crash tests end with PID 1 dying of SIGSEGV, which unshare re-raises on itself:
  // leave no core files behind (soft limit only; children inherit it).
  await execa('prlimit', ['--pid', String(process.pid), '--core=0:']);
});
/** Scratch directories of this file's runs, removed after each test. */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `--stats-file PATH` for a run, and sexton's signal counts from it at exit (state, not log). */
function statsFile(): { args: string[]; signals(): Record<'received' | 'forwarded' | 'dropped', Record<string, number>> } {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-signals-'));
  dirs.push(dir);
  const file = path.join(dir, 'stats.json');
  return { args: ['--stats-file', file], signals: () => JSON.parse(readFileSync(file, 'utf8')).signals };
}

type Run = Awaited<ReturnType<typeof startPid1>>;

/** Sends TERM last (it starts sexton's shutdown); the trap child answers by exiting 3. */
async function stopWithTerm(run: Run) {
  await sendAndAwait(run.pid1, run.stdout, SIGTERM);
  return run.done();
}

/** "R", "S", "Z", … of a host pid; undefined once it is gone. */
const stateOf = (pid: number) => procStat(pid)?.state;

// Every standard signal a process can catch, except TERM (sent last) and CHLD (never forwarded).
const CATCHABLE = [
  'HUP', 'INT', 'QUIT', 'USR1', 'USR2', 'PIPE', 'ALRM', 'STKFLT', 'CONT', 'TSTP', 'TTIN', 'TTOU',
  'URG', 'XCPU', 'XFSZ', 'VTALRM', 'PROF', 'WINCH', 'IO', 'PWR',
];
// Fault signals: sent with kill(2) they are ordinary signals and must be forwarded.
const SENT_FAULTS = ['SEGV', 'BUS', 'FPE', 'ILL', 'ABRT', 'TRAP', 'SYS'];
const number = (name: string) => SIG[`SIG${name}` as NodeJS.Signals];

test('every catchable standard signal sent to sexton reaches the child exactly once, faults sent with kill too', async () => {
  const signals = [...CATCHABLE, ...SENT_FAULTS].map(number);
  const stats = statsFile();
  const run = await startPid1(['-v', ...stats.args, '--', ...trapChild([...signals, SIGTERM])]);
  await run.waitFor('ready');
  for (const signal of signals) await sendAndAwait(run.pid1, run.stdout, signal);
  // The child cannot trap CHLD (its own sleeps raise it), so sexton's counters must show it.
  run.signal('SIGCHLD');
  const result = await stopWithTerm(run);

  expect(deliveries(result.stdout)).toEqual([...signals, SIGTERM]);
  // sexton survived every sent SEGV/BUS/FPE/… and exits with the child's status.
  expect(result.exitCode).toBe(3);
  const counts = stats.signals();
  expect(counts.forwarded.SEGV, result.stderr).toBe(1);
  expect(counts.forwarded.CHLD).toBeUndefined();
  expect(counts.received.CHLD).toBeUndefined();  // the reaper's: sexton has no handler for it
});

test(`every real-time signal (${RTMIN}..${RTMAX}) sent to sexton reaches the child`, async () => {
  const signals = Array.from({ length: RTMAX - RTMIN + 1 }, (_, i) => RTMIN + i);
  const run = await startPid1(['--', ...trapChild([...signals, SIGTERM])]);
  await run.waitFor('ready');
  for (const signal of signals) await sendAndAwait(run.pid1, run.stdout, signal);
  const result = await stopWithTerm(run);
  expect(deliveries(result.stdout)).toEqual([...signals, SIGTERM]);
  expect(result.exitCode).toBe(3);
});

test('-r FROM:TO rewrites names, SIG names, numbers and real-time names; TO=0 or none drops', async () => {
  const stats = statsFile();
  const run = await startPid1([
    '-v',
    ...stats.args,
    '-r', 'USR1:USR2',
    '-r', 'SIGHUP:SIGINT',
    '-r', '3:27',  // QUIT → PROF
    '--rewrite', 'ALRM:RTMIN+3',
    '--rewrite=RTMIN+1:RTMAX',
    '-r', 'SIGRTMAX-1:XCPU',
    '-r', 'WINCH:0',
    '-r', 'URG:none',
    '--', ...trapChild([1, 2, 3, 10, 12, 14, 15, 23, 24, 27, 28, 35, 36, 37, 63, 64]),
  ]);
  await run.waitFor('ready');
  const send = (signal: number, expected: number) => sendAndAwait(run.pid1, run.stdout, signal, expected);
  await send(SIGUSR1, SIGUSR2);
  await send(1, 2);
  await send(3, 27);
  await send(14, RTMIN + 3);
  await send(RTMIN + 1, RTMAX);
  await send(RTMAX - 1, 24);
  // Dropped ones: no delivery, so a marker follows them and what arrived before it is checked.
  // sexton's handler runs one signal at a time, lowest pending number first, and so does the
  // child's shell: a marker numbered above WINCH (28) and URG (23), RTMIN+2, is handled after
  // them, so a forwarded WINCH or URG would be in the child's output before it. Order, not time.
  run.signal('SIGWINCH');
  run.signal('SIGURG');
  await send(RTMIN + 2, RTMIN + 2);
  const result = await stopWithTerm(run);

  expect(deliveries(result.stdout)).toEqual([12, 2, 27, 37, 64, 24, RTMIN + 2, 15]);
  expect(result.exitCode).toBe(3);
  expect(stats.signals().dropped, result.stderr).toMatchObject({ URG: 1, WINCH: 1 });
});

test('SEXTON_REWRITE rewrites and drops like -r', async () => {
  const stats = statsFile();
  const run = await startPid1(['-v', ...stats.args, '--', ...trapChild([1, 2, 10, 12, 15])], {
    env: { SEXTON_REWRITE: 'USR1:USR2, HUP:none' },
  });
  await run.waitFor('ready');
  await sendAndAwait(run.pid1, run.stdout, SIGUSR1, SIGUSR2);
  run.signal('SIGHUP');
  // INT (2) numbers above HUP (1): handled after it by sexton and by the child (see the -r
  // test), it is the marker that a forwarded HUP would come before.
  await sendAndAwait(run.pid1, run.stdout, 2);
  const result = await stopWithTerm(run);
  expect(deliveries(result.stdout)).toEqual([12, 2, 15]);
  expect(stats.signals().dropped.HUP, result.stderr).toBe(1);
});

test('a -r flag wins over SEXTON_REWRITE', async () => {
  const run = await startPid1(['-r', 'USR1:INT', '--', ...trapChild([2, 10, 12, 15])], {
    env: { SEXTON_REWRITE: 'USR1:USR2' },
  });
  await run.waitFor('ready');
  await sendAndAwait(run.pid1, run.stdout, SIGUSR1, 2);
  const result = await stopWithTerm(run);
  expect(deliveries(result.stdout)).toEqual([2, 15]);
});

// The grandchild is still cleaning up when the main child has exited and the leftovers get
// TERM: it got the group's TERM already and must not get a second one (its trap would run again).
test('-g delivers to the child\'s process group: a grandchild in it gets the signal too, TERM once', async () => {
  const run = await startPid1(['-g', '--', 'sh', fixture('signals-group.sh'), '10', '15'], {
    env: { GRANDCHILD_TERM_CLEANUP: '1' },
  });
  await run.waitFor(/^child ready$/m);  // not 'grandchild ready', which contains it
  await run.waitFor('grandchild ready');
  await sendAndAwait(run.pid1, run.stdout, SIGUSR1, SIGUSR1, { label: 'child' });
  await until(() => deliveries(run.stdout(), 'grandchild').includes(SIGUSR1), 10_000, 'grandchild to get USR1');  // a deadline, not a bound: a starved shell may take a while
  await sendAndAwait(run.pid1, run.stdout, SIGTERM, SIGTERM, { label: 'child' });
  const result = await run.done();
  expect(deliveries(result.stdout, 'child')).toEqual([10, 15]);
  expect(deliveries(result.stdout, 'grandchild')).toEqual([10, 15]);
  expect(result.exitCode).toBe(3);
});

// The daemons' TERM goes out with the stop, while the main child (2 s) and the daemon (1 s) are
// both still in the clean-up the group's TERM started: a second TERM would run the daemon's again.
test('-g: a daemon re-parented to sexton, still in the child\'s group, gets the stop\'s TERM once', async () => {
  const trap = fixture('signals-trap.sh');
  const run = await startPid1(['-g', '--', 'sh', '-c',
    '(LABEL=daemon TERM_CLEANUP=1 sh "$0" 15 &); LABEL=child TERM_CLEANUP=2 exec sh "$0" 15', trap]);
  await run.waitFor('daemon ready');
  await run.waitFor(/^child ready$/m);
  await until(() => childrenOf(run.pid1).length === 2, 10_000, 'the daemon to be re-parented to sexton');
  await sendAndAwait(run.pid1, run.stdout, SIGTERM, SIGTERM, { label: 'child' });
  const result = await run.done();
  expect(deliveries(result.stdout, 'daemon')).toEqual([15]);
  expect(deliveries(result.stdout, 'child')).toEqual([15]);
  expect(result.exitCode).toBe(3);
});

test('without -g only the child gets the signal, not a grandchild in its group', async () => {
  const run = await startPid1(['--', 'sh', fixture('signals-group.sh'), '10', '15']);
  await run.waitFor(/^child ready$/m);  // not 'grandchild ready', which contains it
  await run.waitFor('grandchild ready');
  await sendAndAwait(run.pid1, run.stdout, SIGUSR1, SIGUSR1, { label: 'child' });
  // A delivery to the group would have marked USR1 pending at the grandchild by the same kill(2)
  // that reached the child. A TERM the test sends the grandchild itself afterwards is the marker:
  // its shell runs traps lowest number first, so a USR1 would be reported before the TERM.
  const [child] = childrenOf(run.pid1);
  const grandchild = childrenOf(child).find((pid) => readFileSync(`/proc/${pid}/comm`, 'utf8') === 'sh\n') as number;
  await sendAndAwait(grandchild, run.stdout, SIGTERM, SIGTERM, { label: 'grandchild' });
  expect(deliveries(run.stdout(), 'grandchild')).toEqual([SIGTERM]);
  await sendAndAwait(run.pid1, run.stdout, SIGTERM, SIGTERM, { label: 'child' });
  expect((await run.done()).exitCode).toBe(3);
});

test('while sexton\'s JS thread is blocked, signals still reach the child and orphans are still reaped', async () => {
  // The block lasts until the test creates the release file (30 s at most): everything below
  // happens while JS is blocked by construction, however slowly a loaded machine runs the test.
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-signals-'));
  dirs.push(dir);
  const release = path.join(dir, 'release');
  const run = await startPid1(['-v', '--', ...trapChild([SIGUSR1, SIGUSR2, SIGTERM])], {
    nodeArgs: ['--require', fixture('signals-block-js.cjs')],
    env: { BLOCK_AFTER_MS: '300', BLOCK_MS: '30000', BLOCK_UNTIL: release, ORPHANS: '20' },
  });
  await run.waitFor('ready');
  const [child] = childrenOf(run.pid1);
  await run.waitFor('block: start', 'stderr');
  const stillBlocked = () => !run.stderr().includes('block: end');

  await sendAndAwait(run.pid1, run.stdout, SIGUSR1);
  expect(stillBlocked(), 'USR1 arrived only after the block').toBe(true);

  // USR2 makes the child leave 20 orphans, which exit at once and become PID 1's zombies.
  await sendAndAwait(run.pid1, run.stdout, SIGUSR2);
  // Only PID 1 can take them away: once only the main child is left under it, all were reaped.
  await until(() => {
    const children = childrenOf(run.pid1);
    return children.length === 1 && children[0] === child;
  }, 10_000, `only the main child under PID 1; have ${childrenOf(run.pid1).map((p) => `${p}:${stateOf(p)}`)}`);
  expect(stillBlocked(), 'orphans were reaped only after the block').toBe(true);

  writeFileSync(release, '');
  await run.waitFor('block: end', 'stderr', 10_000);
  const result = await stopWithTerm(run);
  expect(result.exitCode).toBe(3);
  const orphans = Number(/reaped \d+ \((\d+) orphans/.exec(result.stderr)?.[1]);
  expect(orphans, result.stderr).toBeGreaterThanOrEqual(20);
});

test('SIGUSR1 sent to sexton reaches the child and never opens Node\'s inspector', async () => {
  const stats = statsFile();
  const run = await startPid1([...stats.args, '--', ...trapChild([SIGUSR1, SIGTERM])]);
  await run.waitFor('ready');
  for (let i = 0; i < 3; i++) await sendAndAwait(run.pid1, run.stdout, SIGUSR1);
  expect(inspectorOpened(run.pid1, run.stderr()), run.stderr()).toBe(false);
  const result = await stopWithTerm(run);
  expect(deliveries(result.stdout)).toEqual([10, 10, 10, 15]);
  // A process has one handler per signal: Node's, which would start the inspector, or sexton's.
  // sexton's counted every USR1, so Node's ran for none (a counter, not a wait for nothing).
  expect(stats.signals().received.USR1, result.stderr).toBe(3);
  expect(result.stderr).not.toMatch(/Debugger listening|inspector/i);
});

test('control: the inspector check sees SIGUSR1 open the inspector of a plain Node PID 1', async () => {
  const run = await startPid1([process.execPath, '-e', 'console.log("up"); setInterval(() => {}, 1000)'], { raw: true });
  await run.waitFor('up');
  run.signal('SIGUSR1');
  await until(() => inspectorOpened(run.pid1, run.stderr()), 5000, 'the inspector to open');
});

test('-p SIGNAL: when sexton (not PID 1) loses its parent, it gets SIGNAL and forwards it', async () => {
  // PID 1 is a shell that outlives an intermediate shell, sexton's parent, which the test kills.
  const script = `sh -c '"$@" & wait' intermediate "$@"; while :; do sleep 1; done`;
  const sexton = [process.execPath, SEXTON, '-p', 'USR2', '--', ...trapChild([SIGUSR2, SIGTERM])];
  const run = await startPid1(['sh', '-c', script, 'pid1', ...sexton], { raw: true });
  await run.waitFor('ready');
  const [intermediate] = childrenOf(run.pid1);
  const [sextonPid] = childrenOf(intermediate);
  expect(readFileSync(`/proc/${sextonPid}/cmdline`, 'utf8')).toContain(SEXTON);
  expect(deliveries(run.stdout())).toEqual([]);

  process.kill(intermediate, 'SIGKILL');
  await until(() => deliveries(run.stdout()).includes(SIGUSR2), 5000, 'the child to get USR2 after the parent died');
  expect(stateOf(sextonPid)).toMatch(/^[RS]$/);  // it forwarded the signal; it did not die of it

  await sendAndAwait(sextonPid, run.stdout, SIGTERM);
  await until(() => (stateOf(sextonPid) ?? 'Z') === 'Z', 5000, 'sexton to exit after its child');
  expect(deliveries(run.stdout())).toEqual([12, 15]);
});

test('sexton\'s own SIGPIPE (logging into a closed pipe) is never forwarded; a PIPE sent to it is', async () => {
  // -vv logs every forwarded signal: each log line hits EPIPE and raises SIGPIPE in sexton.
  const stats = statsFile();
  const sexton = [process.execPath, SEXTON, '-vv', ...stats.args, '--', ...trapChild([SIGUSR1, SIGPIPE, SIGTERM])];
  const run = await startPid1(['sh', fixture('signals-broken-stderr.sh'), ...sexton], { raw: true });
  await run.waitFor('ready');
  for (let i = 0; i < 3; i++) await sendAndAwait(run.pid1, run.stdout, SIGUSR1);
  expect(deliveries(run.stdout())).toEqual([10, 10, 10]);

  await sendAndAwait(run.pid1, run.stdout, SIGPIPE);
  const result = await stopWithTerm(run);
  expect(deliveries(result.stdout)).toEqual([10, 10, 10, 13, 15]);
  expect(result.exitCode).toBe(3);
  // Every forward was logged into the broken pipe until the exit, each raising a SIGPIPE: the
  // counter of PIPEs forwarded over the whole run, not a wait, shows none of them went out.
  expect(stats.signals().forwarded.PIPE, result.stderr).toBe(1);
});

/** Runs argv with no core dumps and an 8 MiB stack (the stack-overflow crash relies on it). */
const crashable = (argv: string[]) => ['sh', '-c', 'ulimit -c 0; ulimit -s 8192; exec "$@"', 'sh', ...argv];

test.each([
  { what: 'process.abort()', preload: 'signals-abort.cjs', nodeFlags: [] as string[], signal: SIG.SIGABRT },
  { what: 'a stack overflow (SIGSEGV)', preload: 'signals-stack-overflow.cjs', nodeFlags: ['--stack-size=60000'], signal: SIGSEGV },
])('a real crash inside sexton, $what, kills it; the child is not sent the signal', async ({ preload, nodeFlags, signal }) => {
  const sexton = [process.execPath, ...nodeFlags, '--require', fixture(preload), SEXTON, '--', ...trapChild([signal, SIGTERM])];
  const run = await startPid1(crashable(sexton), { raw: true, timeoutMs: 10_000 });
  await run.waitFor('ready');
  await run.waitFor('crash:', 'stderr');
  const { stdout, durationMs } = await run.done();
  const { signal: killedBy } = await run.proc;
  // unshare re-raises the signal PID 1 died of; as PID 1, abort() ends in a SIGSEGV.
  expect(killedBy).toMatch(/^SIG(SEGV|ABRT)$/);
  expect(durationMs).toBeLessThan(8000);
  expect(deliveries(stdout)).toEqual([]);
});

test('a fault that V8 handles itself (a WebAssembly trap) in sexton does not stop a sent SEGV from reaching the child', async () => {
  const run = await startPid1(['--', ...trapChild([SIGSEGV, SIGTERM])], {
    nodeArgs: ['--require', fixture('signals-wasm-trap.cjs')],
  });
  await run.waitFor('ready');
  await run.waitFor('wasm: trapped', 'stderr');
  await sendAndAwait(run.pid1, run.stdout, SIGSEGV);
  const result = await stopWithTerm(run);
  expect(deliveries(result.stdout)).toEqual([11, 15]);
  expect(result.exitCode).toBe(3);
});
