// sexton reached through a link named dumb-init behaves as dumb-init: the same tests run against
// Debian's dumb-init, so each assertion is one dumb-init itself passes.
import { constants } from 'node:os';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runInTerminal } from '../support/core';
import { requireBuilt, startPid1, SEXTON, until } from '../support/pid1';
import { alive, bothOf, descendantNamed, inOwnProcessGroup, Links, onlyChild, requirePeers, printed, running, runTool, runToEnd, state } from '../support/personalities';
import { isPending, procStat, readIfThere, signalledOrGone, track } from '../support/processes';
import { childrenOf } from '../../src/harness/namespace';


let links: Links;
beforeAll(() => {
  requireBuilt();
  requirePeers();
  links = new Links();
});
afterAll(() => links?.remove());

const sh = (script: string) => ['sh', '-c', script];
const { SIGTERM, SIGWINCH } = constants.signals;
/** Waits until pid runs `command` (its exec done). */
const execed = (pid: number, command: string) => until(() => readIfThere(`/proc/${pid}/comm`) === `${command}\n`, 10_000, `pid ${pid} to exec ${command}`);

describe.each(bothOf(() => links, 'dumb-init'))('%s', (_label, dumbInit) => {
  test('-V and -h print to stderr and exit 0', async () => {
    const version = await runToEnd([dumbInit(), '-V']);
    expect(version.exitCode).toBe(0);
    expect(version.stderr).toMatch(/^dumb-init v\S+/);
    const help = await runToEnd([dumbInit(), '--help']);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toBe('');
    for (const flag of ['--single-child', '--rewrite', '--verbose', '--version', '--help']) expect(help.stderr).toContain(flag);
  });

  test.each([
    [['--x', 'true'], "dumb-init: unrecognized option '--x'"],
    [['-x', 'true'], "dumb-init: invalid option -- 'x'"],
    [['-r'], "dumb-init: option requires an argument -- 'r'"],
    [['-r', '1', 'true'], ''],
    [['-r', '15:32', 'true'], ''],
    [['-r', '0:1', 'true'], ''],
    [[], 'Usage: '],
  ])('bad input %j exits 1: %s', async (args, line) => {
    const result = await runToEnd([dumbInit(), ...args]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(line);
  });

  test('exec failure: "[dumb-init] CMD: <strerror>" and exit 2', async () => {
    const missing = await runToEnd([dumbInit(), '/nonexistent/command']);
    expect([missing.exitCode, missing.stderr.trim()]).toEqual([2, '[dumb-init] /nonexistent/command: No such file or directory']);
    const notExecutable = await runToEnd([dumbInit(), '/etc/passwd']);
    expect([notExecutable.exitCode, notExecutable.stderr.trim()]).toEqual([2, '[dumb-init] /etc/passwd: Permission denied']);
  });

  test("exits with the child's code, or 128+N for a signal", async () => {
    expect((await runToEnd([dumbInit(), ...sh('exit 42')])).exitCode).toBe(42);
    expect((await runToEnd([dumbInit(), ...sh('kill -USR2 $$')])).exitCode).toBe(128 + 12);
  });

  test("the init moves to / after starting the child; the child keeps the caller's directory", async () => {
    const result = await runToEnd([dumbInit(), ...sh('sleep 0.3; pwd; readlink /proc/$PPID/cwd')], { cwd: links.dir });
    expect(result.stdout.split('\n')).toEqual([links.dir, '/']);
  });

  // The child's and the init's process group and session, from /proc.
  const IDS = sh('sleep 0.1; me=$$; set -- $(cut -d" " -f5,6 /proc/$$/stat) $(cut -d" " -f5,6 /proc/$PPID/stat); echo "$me $*"');
  const ids = (stdout: string) => {
    const [me, pgrp, sid, initPgrp, initSid] = stdout.trim().split(' ').map(Number);
    return { me, pgrp, sid, initPgrp, initSid };
  };

  test('setsid mode (the default): the child leads a session and a process group of its own', async () => {
    const { me, pgrp, sid } = ids((await runToEnd([dumbInit(), ...IDS])).stdout);
    expect([pgrp, sid]).toEqual([me, me]);
  });

  test.each([
    ['-c', ['-c'], {}],
    ['--single-child', ['--single-child'], {}],
    ['DUMB_INIT_SETSID=0', [], { DUMB_INIT_SETSID: '0' }],
  ])("%s: the child stays in the init's group and session", async (_how, flags, env) => {
    const { pgrp, sid, initPgrp, initSid } = ids((await runToEnd([dumbInit(), ...flags, ...IDS], { env })).stdout);
    expect([pgrp, sid]).toEqual([initPgrp, initSid]);
  });

  // sh gets TERM too, and its trap runs once its foreground sleep ends.
  const GROUP_PROBE = sh('trap "echo sh-got-term" TERM; sleep 20; echo sleep=$?');

  test("setsid mode: a signal goes to the child's process group", async () => {
    const run = runTool([dumbInit(), ...GROUP_PROBE]);
    await descendantNamed(run.pid as number, 'sleep');
    process.kill(run.pid as number, 'SIGTERM');
    const result = await run;
    expect(result.stdout).toContain('sleep=143');
  });

  test('-c: a signal goes to the child alone', async () => {
    // sh waits with the `wait` builtin, which a trapped TERM interrupts at once: its line is the
    // event. A delivery to the group would have marked TERM at the sleep by the same kill(2).
    const run = runTool([dumbInit(), '-c', ...sh('trap "echo sh-got-term" TERM; sleep 20 & wait $!; wait $!; echo sleep=$?')]);
    const sleep = await descendantNamed(run.pid as number, 'sleep');
    process.kill(run.pid as number, 'SIGTERM');
    await printed(run, 'sh-got-term');
    expect(signalledOrGone(sleep, SIGTERM), 'the sleep got TERM too').toBe(false);  // only sh got it
    process.kill(sleep, 'SIGKILL');
    const result = await run;
    expect(result.stdout).toContain('sleep=137');
  });

  const TRAPS = sh('trap "echo got-usr1; exit 7" USR1; trap "echo got-term; exit 8" TERM; echo ready; while :; do sleep 0.05; done');

  test('-r 15:10 forwards TERM as USR1; -r 15:0 drops TERM', async () => {
    const rewritten = runTool([dumbInit(), '-c', '-r', '15:10', ...TRAPS]);
    await printed(rewritten, 'ready');
    process.kill(rewritten.pid as number, 'SIGTERM');
    expect((await rewritten).exitCode).toBe(7);

    // The marker after the dropped TERM is WINCH (28): the init handles pending signals lowest
    // number first, one at a time, and so does the child's shell, so a TERM that went out would
    // end the child (8) before the marker's trap could (9). Order, not a wait.
    const marked = sh('trap "echo got-winch; exit 9" WINCH; trap "echo got-term; exit 8" TERM; echo ready; while :; do sleep 0.05; done');
    const dropped = runTool([dumbInit(), '-c', '--rewrite=15:0', ...marked]);
    await printed(dropped, 'ready');
    process.kill(dropped.pid as number, 'SIGTERM');
    process.kill(dropped.pid as number, 'SIGWINCH');
    expect((await dropped).exitCode).toBe(9);
  });

  const LEAVES_ONE = sh('sleep 20 >/dev/null 2>&1 & echo left=$!; exit 4');
  const leftover = (stdout: string) => {
    const pid = Number(/left=(\d+)/.exec(stdout)?.[1]);
    track(pid);
    return pid;
  };

  test("when the child exits: the init exits with its status at once and its group gets TERM", async () => {
    const result = await runToEnd([dumbInit(), ...LEAVES_ONE]);
    expect(result.exitCode).toBe(4);
    const left = leftover(result.stdout);
    await until(() => !alive(left), 3000, `pid ${left} to die of the TERM`);
  });

  test.each([
    ['-r 15:0', ['-r', '15:0']],
    ['-c', ['-c']],  // the pid was reaped: dumb-init's TERM to it reaches nobody
  ])('%s: the leftover gets no TERM when the child exits', async (_how, flags) => {
    const result = await runToEnd([dumbInit(), ...flags, ...LEAVES_ONE]);
    expect(result.exitCode).toBe(4);
    const left = leftover(result.stdout);
    // The init has exited: a TERM it sent would be pending at the sleep (or have ended it) now.
    expect(signalledOrGone(left, SIGTERM)).toBe(false);
  });

  test.each([
    ['setsid mode', [], 'T'],
    ['-c', ['-c'], 'T'],
  ])('%s, not PID 1: TSTP stops the child, then the init stops itself; CONT resumes both', async (_how, flags, childState) => {
    // The kernel drops TSTP's stop for a process group with no parent outside it in its session
    // (an orphaned group): so would a CI runner whose parent shell is gone. A group of its own,
    // under this test process, is never orphaned, however the tests were started.
    const run = runTool(inOwnProcessGroup([dumbInit(), ...flags, 'sleep', '20']));
    const init = run.pid as number;
    const child = await onlyChild(init);
    await execed(child, 'sleep');  // before that, in setsid mode its group may not exist yet
    process.kill(init, 'SIGTSTP');
    await until(() => state(child) === childState && state(init) === 'T', 5000, `both stopped (child ${state(child)}, init ${state(init)})`);
    process.kill(init, 'SIGCONT');
    await until(() => running(child) && running(init), 5000, `both running (child ${state(child)}, init ${state(init)})`);
    process.kill(init, 'SIGTERM');
    expect((await run).exitCode).toBe(143);
  });

  test('as PID 1: TSTP stops the child (the kernel ignores the init stopping itself); CONT resumes it', async () => {
    const run = await startPid1([dumbInit(), 'sleep', '20'], { raw: true });
    const child = await until(() => childrenOf(run.pid1)[0], 10_000, 'the child');
    await execed(child, 'sleep');  // before that, in setsid mode its group may not exist yet
    run.signal('SIGTSTP');
    await until(() => state(child) === 'T', 5000, `child stopped (${state(child)})`);
    // The init stops itself, if at all, while handling TSTP; it handles one signal at a time, so
    // once it has taken a later WINCH off its queue it was not stopped (a stopped one cannot).
    run.signal('SIGWINCH');
    await until(() => !isPending(run.pid1, SIGWINCH) || state(run.pid1) === 'T', 5000, 'the init to take WINCH');
    expect(state(run.pid1)).not.toBe('T');
    run.signal('SIGCONT');
    await until(() => running(child), 5000, 'child running');
    run.signal('SIGTERM');
    expect((await run.done()).exitCode).toBe(143);
  });

  // PID 1 leads the session of a terminal and is its foreground group, as under `docker run -t`.
  const onTerminal = (args: string[]) => runInTerminal([], 20_000, ['setsid', '--ctty', dumbInit(), ...args]);
  // A signal's trap interrupts read: read again.
  const INTERACTIVE = sh('trap "echo got-HUP" HUP; echo ready; until read line; do :; done; echo "got:$line"; exit 3');

  test('on a terminal, setsid mode: the child takes the terminal, gets no SIGHUP from the hand-off but a later one, and reads a typed line', async () => {
    const term = await onTerminal(INTERACTIVE);
    await until(() => term.screen().includes('ready'), 10_000, `"ready" on the terminal; have ${JSON.stringify(term.screen())}`);
    const child = childrenOf(term.pid1)[0];
    const stat = procStat(child);
    expect(stat?.pgrp).toBe(child);
    expect(stat?.tpgid).toBe(child);  // its group is the terminal's foreground
    expect(procStat(term.pid1)?.tpgid).toBe(-1);  // the init has no terminal any more
    expect(term.screen()).not.toContain('got-HUP');  // the kernel's, when the init let go of the terminal
    process.kill(term.pid1, 'SIGHUP');  // a real one, from outside, is forwarded
    await until(() => term.screen().includes('got-HUP'), 5000, 'the child to get the HUP');
    term.type('hello\n');
    const result = await term.proc;
    expect(term.screen()).toContain('got:hello');
    expect(term.screen().match(/got-HUP/g)).toHaveLength(1);
    expect(result.exitCode).toBe(3);
  });

  test("on a terminal, -c: the child stays in the init's foreground group and reads a typed line", async () => {
    const term = await onTerminal(['-c', ...INTERACTIVE]);
    await until(() => term.screen().includes('ready'), 10_000, `"ready" on the terminal; have ${JSON.stringify(term.screen())}`);
    const child = childrenOf(term.pid1)[0];
    expect(procStat(child)?.pgrp).toBe(procStat(term.pid1)?.pgrp);
    expect(procStat(child)?.tpgid).toBe(procStat(term.pid1)?.pgrp);
    term.type('hello\n');
    const result = await term.proc;
    expect(term.screen()).toContain('got:hello');
    expect(result.exitCode).toBe(3);
  });
});

describe('sexton as dumb-init only', () => {
  const dumbInit = () => links.path('dumb-init');

  test('-V names sexton; SEXTON_PERSONALITY=dumb-init makes plain sexton dumb-init', async () => {
    expect((await runToEnd([dumbInit(), '-V'])).stderr).toMatch(/^dumb-init v\S*sexton/);
    const viaEnv = await runToEnd([process.execPath, SEXTON, '-V'], { env: { SEXTON_PERSONALITY: 'dumb-init' } });
    expect(viaEnv.stderr).toMatch(/^dumb-init v/);
  });

  test.each([
    ['-v', ['-v'], {}],
    ['DUMB_INIT_DEBUG=1', [], { DUMB_INIT_DEBUG: '1' }],
  ])('%s: [dumb-init] lines say the child started, each signal forwarded, and how the child exited', async (_how, flags, env) => {
    // The child lingers after the HUP: its notice and its exit reach sexton's JS on separate threads.
    const run = runTool([dumbInit(), ...flags, ...sh('exec 2>/dev/null; trap "sleep 0.3; exit 6" HUP; echo ready; while :; do sleep 0.05; done')], { env });
    await printed(run, 'ready');
    process.kill(run.pid as number, 'SIGHUP');
    const result = await run;
    expect(result.exitCode).toBe(6);
    const lines = String(result.stderr).trim().split('\n');
    expect(lines.every((line) => line.startsWith('[dumb-init] '))).toBe(true);
    expect(result.stderr).toMatch(/started .* as pid \d+/);
    expect(result.stderr).toMatch(/forwarded HUP to process group \d+/);
    expect(result.stderr).toMatch(/main child \(pid \d+\) exited with code 6/);
  });

  test('quiet by default: nothing on stderr for a plain run', async () => {
    const result = await runToEnd([dumbInit(), 'true']);
    expect([result.exitCode, result.stderr]).toEqual([0, '']);
  });
});
