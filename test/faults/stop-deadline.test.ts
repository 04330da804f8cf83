// A stop that no failure can skip. sexton runs as a real PID 1 (a fresh PID
// namespace) and is hurt where its stop sequence lives:
//  - out of file descriptors at the stop signal: RLIMIT_NOFILE lowered under what sexton holds,
//    from outside, with prlimit (what a flood of a listener's clients does, deterministically):
//    every /proc read of the stop sequence fails with EMFILE;
//  - its JS thread blocked past the grace period: the stats file lives on a filesystem frozen
//    with fsfreeze (what backup snapshots do, and what a hung NFS server looks like); sexton's
//    synchronous write there sleeps in the kernel (state D) until the thaw; and, for CPU-bound
//    JS, the busy loop of a test preload (test/fixtures/signals-block-js.cjs, never in the init).
// Each failed step is one line and the next still run; the native deadline (drain cap + grace +
// 3 s) kills what is left when JS cannot. tini has no descriptor exposure on its stop path (it
// opens nothing) and no JS thread: it is run beside sexton where the exposure is the same.
import { execFileSync } from 'node:child_process';
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { scratchDir } from '../support/faults';
import { namespacePid } from '../../src/harness/namespace';
import { fixture, type Pid1Run, requireBuilt, requireTini, startPid1, SEXTON, TINI, until } from '../support/pid1';
import { hostDescendants, signalledOrGone, track } from '../support/processes';
import { isAlive, logLines, readyPids } from '../support/shutdown';

const DAEMON = fixture('deadline-daemon.sh');
const IGNORE_TERM = fixture('shutdown-ignore-term.sh');
/** What src/init/stop-deadline.ts adds to drain cap + grace: the kill round's backstop and a margin. */
const DEADLINE_EXTRA_MS = 3000;
const cleanups: (() => void)[] = [];

beforeAll(() => {
  requireBuilt();
  for (const tool of ['prlimit', 'fsfreeze', 'mkfs.ext4']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      throw new Error(`${tool} is missing: these tests need util-linux and e2fsprogs`);
    }
  }
});

afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** The lowest fd number `pid` has free: with RLIMIT_NOFILE there, no new descriptor can be made. */
function lowestFreeFd(pid: number): number {
  const open = new Set(readdirSync(`/proc/${pid}/fd`).map(Number));
  let fd = 0;
  while (open.has(fd)) fd++;
  return fd;
}

function nofile(pid: number): string {
  const line = readFileSync(`/proc/${pid}/limits`, 'utf8').split('\n').find((l) => l.startsWith('Max open files')) as string;
  const [soft, hard] = line.trim().split(/\s+/).slice(3, 5);
  return `${soft}:${hard}`;
}

/**
 * Leaves `pid` no descriptor to open (the soft limit: raising a hard one back needs
 * CAP_SYS_RESOURCE, which these machines do not give); returns how to give them back.
 */
function exhaustDescriptors(pid: number): () => void {
  const [soft, hard] = nofile(pid).split(':');
  const limit = lowestFreeFd(pid);
  execFileSync('prlimit', ['--pid', String(pid), `--nofile=${limit}:${hard}`]);
  expect(nofile(pid)).toBe(`${limit}:${hard}`);
  return () => execFileSync('prlimit', ['--pid', String(pid), `--nofile=${soft}:${hard}`]);
}

/** The host pid of namespace pid `nsPid` under PID 1 (host pid `pid1`). */
function hostPidOf(pid1: number, nsPid: number): number {
  const found = hostDescendants(pid1).find((pid) => namespacePid(pid) === nsPid);
  if (found === undefined) throw new Error(`no process with namespace pid ${nsPid} under ${pid1}`);
  return found;
}

/**
 * Every line is sexton's (no stack frame on lines of its own), and no error names the folder
 * sexton was built in (the fixture's own path, in the survivor lines, is the user's command).
 */
function expectOneLineErrors(stderr: string): void {
  expect(stderr).not.toMatch(/^\s+at /m);
  for (const line of stderr.split('\n').filter(Boolean)) {
    expect(line).toMatch(/^sexton: /);
    if (/failed|error/.test(line)) expect(line).not.toContain(path.resolve(__dirname, '..', '..'));
  }
}

describe('out of descriptors at the stop signal', () => {
  test('every failed step is one line, the grace period still runs and SIGKILL reaches a TERM-ignoring child', async () => {
    const run = await startPid1(['-t', '2', '--', 'sh', DAEMON], { timeoutMs: 20_000 });
    const [main, daemon, helper] = await readyPids(run);
    const hosts = [main, daemon, helper].map((pid) => hostPidOf(run.pid1, pid));
    exhaustDescriptors(run.pid1);

    const sent = Date.now();
    run.signal('SIGTERM');
    const result = await run.done();
    const took = Date.now() - sent;

    // Killed by the lifecycle at the grace period (137), not by the native deadline (124).
    expect(result.exitCode, result.stderr).toBe(137);
    expect(took).toBeGreaterThanOrEqual(2000);
    expect(took).toBeLessThan(2000 + DEADLINE_EXTRA_MS);
    for (const pid of hosts) expect(isAlive(pid)).toBe(false);
    const lines = logLines(result.stderr);
    expect(lines).toContain('received TERM: stopping grace period 2s');
    for (const step of ['report-zombie-parents', 'terminate-daemons', 'kill-survivors']) {
      expect(lines.filter((l) => l.startsWith(`stop sequence: ${step} failed (the next steps go on): Error: EMFILE`)), step).toHaveLength(1);
    }
    expect(lines.at(-1)).toMatch(/^exiting with 137: /);
    expect(result.stderr).not.toContain('stop deadline');
    expectOneLineErrors(result.stderr);
  });

  test('after the descriptors come back, a second TERM carries out the steps that failed', async () => {
    const run = await startPid1(['-t', '6', '--', 'sh', DAEMON], { timeoutMs: 30_000 });
    const [main, daemon] = await readyPids(run);
    const [mainHost, daemonHost] = [main, daemon].map((pid) => hostPidOf(run.pid1, pid));
    const giveBack = exhaustDescriptors(run.pid1);

    const sent = Date.now();
    run.signal('SIGTERM');
    await run.waitFor(/terminate-daemons failed/, 'stderr', 5000);
    // The daemon never heard of the stop: a TERM sent before the failure's line would be pending
    // at it, or would have ended it, by now (it does not catch TERM).
    expect(signalledOrGone(daemonHost, constants.signals.SIGTERM)).toBe(false);
    giveBack();
    run.signal('SIGTERM');
    await run.waitFor('received TERM again: retrying report-zombie-parents, terminate-daemons', 'stderr', 5000);
    await until(() => !isAlive(daemonHost), 3000, 'the daemon to die of its TERM');
    const daemonGone = Date.now() - sent;
    expect(daemonGone).toBeLessThan(6000);  // inside the grace period
    expect(isAlive(mainHost)).toBe(true);  // it ignores TERM: the grace period is still to come

    const result = await run.done();
    const took = Date.now() - sent;
    expect(result.exitCode, result.stderr).toBe(137);
    expect(took).toBeGreaterThanOrEqual(6000);
    expect(took).toBeLessThan(6000 + DEADLINE_EXTRA_MS);
    expect(result.stderr).not.toContain('stop deadline');
    expectOneLineErrors(result.stderr);
  });

  test('beside tini: both forward TERM with no descriptor to spare, and exit with the child (143)', async () => {
    requireTini();
    for (const [name, argv, raw] of [['sexton', ['--', 'sleep', '60'], false], ['tini', [TINI, '-s', '--', 'sleep', '60'], true]] as const) {
      const run = await startPid1([...argv], { raw, timeoutMs: 15_000 });
      await until(() => hostDescendants(run.pid1).length === 1, 10_000, `${name}'s child`);
      exhaustDescriptors(run.pid1);
      const sent = Date.now();
      run.signal('SIGTERM');
      const result = await run.done();
      expect(result.exitCode, `${name}: ${result.stderr}`).toBe(143);
      expect(Date.now() - sent, name).toBeLessThan(3000);
    }
  });
});

/** An ext4 image mounted on a loop device in a scratch dir, for freezing. */
function freezableDir(): { dir: string; freeze(): void; thaw(): void } {
  const scratch = scratchDir();
  const image = path.join(scratch.dir, 'deadline-fs.img');
  const dir = path.join(scratch.dir, 'mnt');
  mkdirSync(dir);
  execFileSync('truncate', ['-s', '8M', image]);
  execFileSync('mkfs.ext4', ['-q', '-F', image]);
  execFileSync('mount', ['-o', 'loop', image, dir]);
  let frozen = false;
  const thaw = () => {
    if (frozen) execFileSync('fsfreeze', ['--unfreeze', dir]);
    frozen = false;
  };
  cleanups.push(scratch.remove);
  cleanups.push(() => {
    // The init's write may finish only once thawed: wait for the mount to be free.
    const deadline = Date.now() + 10_000;
    for (;;) {
      try {
        execFileSync('umount', [dir], { stdio: 'ignore' });  // a loop mount frees its device
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        execFileSync('sleep', ['0.1']);
      }
    }
  });
  cleanups.push(thaw);
  return {
    dir,
    freeze: () => {
      execFileSync('fsfreeze', ['--freeze', dir]);
      frozen = true;
    },
    thaw,
  };
}

/** State and wait channel of PID 1's main (JS) thread; never reads anything that needs its memory. */
function jsThread(run: Pid1Run): { state: string; wchan: string } {
  const stat = readFileSync(`/proc/${run.pid1}/task/${run.pid1}/stat`, 'utf8');
  return { state: stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0], wchan: readFileSync(`/proc/${run.pid1}/task/${run.pid1}/wchan`, 'utf8') };
}

describe('the JS thread blocked past the grace period', () => {
  test('the native deadline SIGKILLs what is left at drain cap + grace + 3 s and sexton exits 124', async () => {
    const fs = freezableDir();
    const stats = path.join(fs.dir, 'stats.json');
    const run = await startPid1(['-t', '1', '--stats-file', stats, '--', 'sh', IGNORE_TERM], { timeoutMs: 40_000 });
    const [main, helper] = await readyPids(run);
    const hosts = [main, helper].map((pid) => hostPidOf(run.pid1, pid));
    await until(() => existsSync(stats), 5000, 'the first stats file');
    fs.freeze();

    const sent = Date.now();
    run.signal('SIGTERM');
    // TERM changed the stats (a signal counted, the phase): the file's next write, within a
    // second, sleeps in the kernel. (When that tick comes before JS has read TERM's notice, even
    // "received TERM" is never logged: the stop is then the deadline's alone.)
    // State and wait channel from one look: on a loaded machine the thread also passes through a
    // short D elsewhere (a page fault's read), and is running again by the next look.
    let seen = jsThread(run);
    const blockedInFreeze = () => (seen = jsThread(run)).state === 'D' && seen.wchan === 'percpu_rwsem_wait';
    await until(blockedInFreeze, 3000, 'the JS thread to block in the frozen filesystem').catch((error: Error) => {
      throw new Error(`${error.message}; last seen ${JSON.stringify(seen)}`);
    });
    // A working lifecycle would have killed them at the grace period (1 s): that they lived until
    // the deadline is the lower bound on `killed` (taken once all are gone, so a death at any
    // earlier time fails it), and no grace period is in the log to the end.
    await until(() => hosts.every((pid) => !isAlive(pid)), 12_000, 'the native deadline to kill the tree');
    const killed = Date.now() - sent;
    expect(killed).toBeGreaterThanOrEqual(1000 + DEADLINE_EXTRA_MS - 50);
    expect(killed).toBeLessThan(1000 + DEADLINE_EXTRA_MS + 8000);
    await run.waitFor('stop deadline: 4s after TERM', 'stderr', 3000);
    // The JS thread leaves only when the kernel lets go of it: the exit waits for the thaw.
    fs.thaw();
    const result = await run.done();
    expect(result.exitCode, result.stderr).toBe(124);
    expect(result.stderr).not.toContain('grace period over');
    const lines = logLines(result.stderr);
    expect(lines.at(-1)).toBe("stop deadline: 4s after TERM the stop sequence had not finished (sexton's JavaScript was blocked or failing): SIGKILL to every process left, exiting 124");
    expectOneLineErrors(result.stderr);
  });
});

describe('the JS thread busy past the grace period', () => {
  // A preload of the test's (not in the init) busy-loops sexton's JS thread: CPU-bound JS, which
  // unlike the frozen filesystem lets the process exit at once.
  test('the deadline kills at drain cap + grace + 3 s and sexton exits 124 right then', async () => {
    const run = await startPid1(['-d', '0.5', '-t', '1', '--', 'sh', IGNORE_TERM], {
      nodeArgs: ['--require', fixture('signals-block-js.cjs')],
      env: { BLOCK_AFTER_MS: '500', BLOCK_MS: '20000' },
      timeoutMs: 30_000,
    });
    const [main, helper] = await readyPids(run);
    const hosts = [main, helper].map((pid) => hostPidOf(run.pid1, pid));
    await run.waitFor('block: start', 'stderr');
    const sent = Date.now();
    run.signal('SIGTERM');
    const result = await run.done();
    const took = Date.now() - sent;
    expect(result.exitCode, result.stderr).toBe(124);
    expect(took).toBeGreaterThanOrEqual(1500 + DEADLINE_EXTRA_MS - 50);
    expect(took).toBeLessThan(1500 + DEADLINE_EXTRA_MS + 5000);
    for (const pid of hosts) expect(isAlive(pid)).toBe(false);
    expect(result.stderr).not.toContain('block: end');  // JS never ran again
    expect(result.stderr).not.toContain('received TERM');
    expect(result.stderr).toContain('sexton: stop deadline: 4.5s after TERM the stop sequence had not finished');
  });

  test('as PID 1, the main child exits while JS is stuck: the addon sends TERM 2 s on, and at the deadline sexton leaves with the status --remap-exit makes of the child\'s', async () => {
    const scratch = scratchDir();
    cleanups.push(scratch.remove);
    const go = path.join(scratch.dir, 'exit-now');
    // The child exits 3 once the test says so, after the block began; its sleep ignores TERM.
    const child = `trap "" TERM; sleep 100 & echo ready; while [ ! -e ${go} ]; do sleep 0.05; done; exit 3`;
    const run = await startPid1(['-t', '1', '-e', '3', '--', 'sh', '-c', child], {
      nodeArgs: ['--require', fixture('signals-block-js.cjs')],
      env: { BLOCK_AFTER_MS: '300', BLOCK_MS: '30000' },
      timeoutMs: 30_000,
    });
    await run.waitFor('ready');
    await run.waitFor('block: start', 'stderr');
    const exited = Date.now();
    writeFileSync(go, '');
    const result = await run.done();
    const took = Date.now() - exited;
    // 0, not 3: the child's status as --remap-exit has it, though JS never ran again.
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('block: end');
    expect(result.stderr).toContain("sexton's JavaScript has not answered");
    expect(result.stderr).toContain("exiting with the main child's status (after --remap-exit)");
    // The answer's 2 s, then the deadline: grace 1 s plus the backstop and margin.
    expect(took).toBeGreaterThanOrEqual(2000 + 1000 + DEADLINE_EXTRA_MS - 100);
    expect(took).toBeLessThan(2000 + 1000 + DEADLINE_EXTRA_MS + 8000);
  });

  test('as a subreaper (not PID 1): the main child, its group and a daemon of its own session die at the deadline', async () => {
    const proc = execa(process.execPath, ['--require', fixture('signals-block-js.cjs'), SEXTON, '-t', '1', '--', 'sh', fixture('deadline-subtree.sh')], {
      reject: false, stdin: 'ignore', timeout: 30_000, killSignal: 'SIGKILL',
      env: { BLOCK_AFTER_MS: '300', BLOCK_MS: '20000' },
    });
    track(proc.pid);
    let out = '';
    proc.stdout?.on('data', (d) => (out += d));
    await until(() => out.includes('ready') && hostDescendants(proc.pid as number).length >= 3, 10_000, 'the subtree');
    const tree = hostDescendants(proc.pid as number);
    for (const pid of tree) track(pid);
    const sent = Date.now();
    process.kill(proc.pid as number, 'SIGTERM');
    const result = await proc;
    expect(result.exitCode, result.stderr).toBe(124);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(1000 + DEADLINE_EXTRA_MS - 50);
    await until(() => tree.every((pid) => !isAlive(pid)), 2000, 'every process of the subtree to be gone');
    expect(result.stderr).toContain('sexton: stop deadline: 4s after TERM');
  });
});

describe('a normal stop never reaches the deadline', () => {
  test.each([
    ['a grace period', ['-t', '1'], 1000],
    ['a drain delay and a grace period', ['-d', '0.5', '-t', '0.5'], 1000],
  ])('%s: the lifecycle kills at its time and exits 137 long before the deadline', async (_, flags, stopMs) => {
    const run = await startPid1([...flags, '--', 'sh', IGNORE_TERM], { timeoutMs: 15_000 });
    await readyPids(run);
    const sent = Date.now();
    run.signal('SIGTERM');
    const result = await run.done();
    const took = Date.now() - sent;
    expect(result.exitCode, result.stderr).toBe(137);
    expect(took).toBeGreaterThanOrEqual(stopMs);
    expect(took).toBeLessThan(stopMs + DEADLINE_EXTRA_MS);
    expect(result.stderr).not.toContain('stop deadline');
    expect(logLines(result.stderr).at(-1)).toMatch(/^exiting with 137: /);
  });

  test('a cooperative child: exit 143 at once, nothing of the deadline said', async () => {
    const run = await startPid1(['-t', '1', '--', 'sh', '-c', 'echo ready; sleep 60'], { timeoutMs: 15_000 });
    await run.waitFor('ready');
    const sent = Date.now();
    run.signal('SIGTERM');
    const result = await run.done();
    expect(result.exitCode).toBe(143);
    expect(Date.now() - sent).toBeLessThan(DEADLINE_EXTRA_MS);
    expect(result.stderr).not.toContain('stop deadline');
  });
});
