// The supervisor's whole life on a fake host: a clock moved by hand, a /proc of files in a
// temporary directory, and an addon stand-in whose processes die (or do not) as a kernel's
// would. No namespace, no root, no addon: each life takes milliseconds.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseArgs } from '../../../src/config/options';
import { EXIT } from '../../../src/config/exit-codes';
import { Supervisor } from '../../../src/init/supervisor';
import type { SupervisorHooks } from '../../../src/init/supervisor';
import type { Clock, Host } from '../../../src/platform/host';
import { DEBUG, Logger } from '../../../src/platform/log';
import type { Native, NativeCounters, Notice, ReapEvent } from '../../../src/platform/native';

const TERM = 15;
const KILL = 9;
const SEXTON = 1;

/** Timers fire when the test moves the clock, in order of their time. */
class FakeClock implements Clock {
  private at = 0;
  private nextId = 0;
  private timers: { id: number; due: number; ms: number; repeat: boolean; fire: () => void }[] = [];
  private immediates: (() => void)[] = [];

  now = () => 1_700_000_000_000 + this.at;
  monotonic = () => this.at;

  after(ms: number, fire: () => void, how: { repeat?: boolean }): () => void {
    const id = this.nextId++;
    this.timers.push({ id, due: this.at + ms, ms, repeat: how.repeat ?? false, fire });
    return () => void (this.timers = this.timers.filter((t) => t.id !== id));
  }

  soon(fire: () => void): void {
    this.immediates.push(fire);
  }

  /** Runs what is due up to `ms` from now; stops when `until` holds. */
  advance(ms: number, until: () => boolean = () => false): void {
    const end = this.at + ms;
    for (;;) {
      this.flushImmediates();
      if (until()) return;
      const next = [...this.timers].sort((a, b) => a.due - b.due || a.id - b.id)[0];
      if (!next || next.due > end) break;
      this.at = next.due;
      if (next.repeat) next.due += next.ms;
      else this.timers = this.timers.filter((t) => t !== next);
      next.fire();
    }
    this.at = end;
    this.flushImmediates();
  }

  get elapsed(): number {
    return this.at;
  }

  private flushImmediates(): void {
    for (let fire = this.immediates.shift(); fire; fire = this.immediates.shift()) fire();
  }
}

/** How a fake process meets a signal. */
type Temper = 'obeys' | 'ignores-term' | 'unkillable';

interface FakeProcess { pid: number; ppid: number; name: string; temper: Temper; state: 'S' | 'D' }

/**
 * A PID namespace with sexton as PID 1: processes as files under a fake /proc, signals that end
 * them by their temper, orphans re-parented to sexton and reaped, reap events as the reaper
 * thread would post them.
 */
class FakeWorld {
  readonly proc = mkdtempSync(path.join(tmpdir(), 'sexton-supervisor-'));
  readonly processes = new Map<number, FakeProcess>();
  readonly counters: NativeCounters = {
    reaped: 0, orphansReaped: 0, received: new Array(65).fill(0), forwarded: new Array(65).fill(0),
    dropped: new Array(65).fill(0), orphansByCommand: {}, orphansUnnamed: 0, groupGotTerm: false,
  };
  readonly signalled: { pid: number | 'all' | 'main'; signal: number }[] = [];
  deadline?: unknown[];
  exitCode?: number;
  mainPid = 0;
  private mainGone = false;
  private reaper?: (event: ReapEvent) => void;
  private notifier?: (notice: Notice) => void;

  constructor() {
    writeFileSync(path.join(this.proc, 'uptime'), '1000.00 900.00\n');
  }

  add(p: Omit<FakeProcess, 'state'>): void {
    const state = p.temper === 'unkillable' ? 'D' : 'S';
    this.processes.set(p.pid, { ...p, state });
    this.write(p.pid);
  }

  /** The stop signal as the addon's handler takes it: counted at once, then a notice. */
  stopSignal(): void {
    this.counters.received[TERM]++;
    this.notifier?.({ kind: 'signal', signal: TERM, action: -1, sender: 0, errno: 0 });
  }

  native(): Native {
    const live = () => [...this.processes.keys()];
    const fake: Partial<Native> = {
      spawn: () => {
        this.mainPid = 100;
        this.add({ pid: 100, ppid: SEXTON, name: 'app', temper: 'obeys' });
        return { pid: 100, execErrno: 0, forkErrno: 0 };
      },
      startReaper: (onEvent) => ((this.reaper = onEvent), 0),
      startNotifier: (onNotice) => ((this.notifier = onNotice), 0),
      setSignalAction: () => undefined,
      setSignalNotify: () => undefined,
      setProcTrusted: () => undefined,
      setForwardToGroup: () => undefined,
      setStopDeadline: (...args) => void (this.deadline = args),
      releaseFilePages: () => 0,
      trimMallocHeap: () => true,
      compactJsHeap: () => true,
      putIsolateInBackground: () => true,
      watchOomEvents: () => 0,
      becomeSubreaper: () => true,
      isSubreaper: () => true,
      stats: () => this.counters,
      signalsReceived: (signal) => this.counters.received[signal],
      signalMainChild: (signal) => this.deliver('main', [this.mainPid], signal),
      signalEveryProcess: (signal) => this.deliver('all', live(), signal),
      signalProcess: (pid, signal) => this.deliver(pid, [pid], signal),
      exit: ((code: number) => void (this.exitCode ??= code)) as Native['exit'],
    };
    return fake as Native;
  }

  cleanup(): void {
    rmSync(this.proc, { recursive: true, force: true });
  }

  private deliver(target: number | 'all' | 'main', pids: number[], signal: number): number {
    this.signalled.push({ pid: target, signal });
    for (const pid of pids) {
      const p = this.processes.get(pid);
      if (!p || p.temper === 'unkillable' || (signal === TERM && p.temper === 'ignores-term')) continue;
      if (signal === TERM || signal === KILL) this.die(p, signal);
    }
    return 0;
  }

  /** Dies, its children go to sexton, and sexton reaps it if it was its child. */
  private die(p: FakeProcess, signal: number): void {
    this.processes.delete(p.pid);
    rmSync(path.join(this.proc, String(p.pid)), { recursive: true, force: true });
    for (const child of this.processes.values()) {
      if (child.ppid !== p.pid) continue;
      child.ppid = SEXTON;
      this.write(child.pid);
    }
    if (p.ppid !== SEXTON) return;
    this.counters.reaped++;
    const children = () => [...this.processes.values()].filter((c) => c.ppid === SEXTON).length;
    if (p.pid === this.mainPid) {
      this.mainGone = true;
      this.reaper?.({ kind: 'main-exited', pid: p.pid, exitCode: 0, signal, lastChild: children() === 0 });
    } else {
      this.counters.orphansReaped++;
    }
    // sexton's exit ends everything: the real one does not return.
    if (this.mainGone && children() === 0 && this.exitCode === undefined) this.reaper?.({ kind: 'no-children', pid: 0, exitCode: -1, signal: 0, lastChild: false });
  }

  private write(pid: number): void {
    const p = this.processes.get(pid) as FakeProcess;
    const fields = new Array(40).fill('0');
    fields[0] = p.state;
    fields[1] = String(p.ppid);
    fields[19] = String(1000 + pid);  // start time, in clock ticks
    const dir = path.join(this.proc, String(pid));
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'stat'), `${pid} (${p.name}) ${fields.join(' ')}\n`);
    writeFileSync(path.join(dir, 'cmdline'), `${p.name}\0`);
  }
}

const worlds: FakeWorld[] = [];
afterEach(() => worlds.splice(0).forEach((w) => w.cleanup()));

/** sexton as PID 1 on the fake host, with `args` for options. */
function boot(args: string[], hooks?: SupervisorHooks) {
  const world = new FakeWorld();
  worlds.push(world);
  const clock = new FakeClock();
  const lines: string[] = [];
  const log = new Logger(DEBUG, 'text', (text) => (lines.push(text.trimEnd()), text.length));
  const request = parseArgs([...args, '--', 'app'], {});
  if (request.kind !== 'run') throw new Error('not a run');
  const host: Host = {
    isInit: true, pid: SEXTON, ppid: 0, procTrusted: true, procRoot: world.proc, cgroupRoot: path.join(world.proc, 'none'),
    native: world.native(), clock,
  };
  const supervisor = new Supervisor(request.options, log, host, hooks);
  supervisor.start();
  const said = (pattern: RegExp) => lines.some((l) => pattern.test(l));
  return { world, clock, lines, said, supervisor };
}

describe('the supervisor on a fake host', () => {
  test('a whole life: start, orphans, TERM with a drain, a child that ignores TERM, a second TERM, survivors, an unkillable one, the stop deadline', () => {
    const { world, clock, said, supervisor } = boot(['--grace', '1', '--drain-delay', '0.5']);
    // The native deadline is armed before the spawn: drain cap + grace + backstop + margin.
    expect(world.deadline?.slice(0, 3)).toEqual([TERM, 4500, EXIT.stopDeadline]);
    expect(said(/started 'app' as pid 100/)).toBe(true);
    expect(supervisor.health().ready).toBe(true);

    // Orphans: a daemon re-parented to sexton, a worker that ignores TERM, and below it a
    // process stuck in the kernel.
    world.processes.get(100)!.temper = 'ignores-term';
    world.add({ pid: 200, ppid: SEXTON, name: 'daemon', temper: 'obeys' });
    world.add({ pid: 300, ppid: 100, name: 'stuck', temper: 'unkillable' });
    clock.advance(200);  // the exporters start, nothing else moves

    world.stopSignal();
    // Readiness drops with the native counter, before the drain ends.
    expect(supervisor.health()).toMatchObject({ ready: false, reason: 'stopping: the stop signal arrived' });
    expect(said(/received TERM: stopping after a 0.5s drain delay, grace period 1s/)).toBe(true);
    clock.advance(499);
    expect(world.signalled).toEqual([]);
    clock.advance(1);
    // The drain is over: TERM to the main child, and to the daemon nobody else would tell.
    expect(world.signalled).toEqual([{ pid: 'main', signal: TERM }, { pid: 200, signal: TERM }]);
    expect(world.processes.has(200)).toBe(false);
    expect(world.counters.orphansReaped).toBe(1);
    expect(world.processes.has(100)).toBe(true);  // it ignores TERM
    // A second TERM within the grace period reaches the child too, as it would without a drain.
    world.stopSignal();
    expect(world.signalled.filter((s) => s.pid === 'main' && s.signal === TERM)).toHaveLength(2);

    // The grace period ends: survivors named and killed; the main child dies, the stuck one does not.
    clock.advance(1000);
    expect(said(/grace period over: killing pid 100 \(app\)/)).toBe(true);
    expect(said(/grace period over: killing pid 300 \(\[stuck\]\), state D/)).toBe(true);
    expect(world.signalled).toContainEqual({ pid: 'all', signal: KILL });
    expect(said(/main child \(pid 100\) was killed by KILL/)).toBe(true);
    expect(world.exitCode).toBeUndefined();

    // A moment later whoever is left is named, the kill round repeating meanwhile; the backstop
    // ends the wait well before the native deadline.
    clock.advance(500);
    expect(said(/could not kill pid 300 \(stuck\): state D/)).toBe(true);
    expect(world.signalled.filter((s) => s.pid === 'all' && s.signal === KILL).length).toBeGreaterThanOrEqual(5);
    const stopAt = clock.elapsed - 1500;
    clock.advance(2000, () => world.exitCode !== undefined);
    expect(said(/still there after SIGKILL \(uninterruptible\?\): exiting anyway/)).toBe(true);
    expect(world.exitCode).toBe(128 + KILL);
    expect(clock.elapsed - stopAt).toBeLessThan(4500);
    expect(said(/exiting with 137: .*killed 2 survivor\(s\)/)).toBe(true);
  });

  test('a second TERM during the drain skips the rest of it; the child that obeys ends the life', () => {
    const { world, clock, said } = boot(['--grace', '5', '--drain-delay', '10']);
    world.stopSignal();
    clock.advance(1000);
    expect(world.signalled).toEqual([]);
    world.stopSignal();
    expect(said(/received TERM again: skipping the rest of the drain delay/)).toBe(true);
    expect(world.signalled).toEqual([{ pid: 'main', signal: TERM }]);
    clock.advance(0);
    expect(world.exitCode).toBe(128 + TERM);
    expect(clock.elapsed).toBe(1000);
  });

  test('a main child gone with processes left: they get TERM, and the exit waits for them', () => {
    const { world, clock, said } = boot(['--grace', '2']);
    world.add({ pid: 400, ppid: 100, name: 'worker', temper: 'obeys' });
    world.add({ pid: 500, ppid: 100, name: 'sulker', temper: 'ignores-term' });
    world.processes.get(100)!.temper = 'obeys';
    // The main child ends on its own (exit code 0 as the fake reports every death).
    world.native().signalMainChild(TERM);
    expect(said(/main child is gone; 2 process\(es\) left: sending TERM, grace period 2s/)).toBe(true);
    expect(world.processes.has(400)).toBe(false);
    expect(world.exitCode).toBeUndefined();
    clock.advance(2000, () => world.exitCode !== undefined);
    expect(said(/grace period over: killing pid 500 \(sulker\)/)).toBe(true);
    expect(world.exitCode).toBe(128 + TERM);
    expect(clock.elapsed).toBe(2000);
  });

  test('tini and dumb-init leave with their main child: the hook ends the life at once', () => {
    const { world, said } = boot(['--grace', '5'], { mainExited: () => true });
    world.add({ pid: 600, ppid: 100, name: 'left-behind', temper: 'obeys' });
    world.native().signalMainChild(TERM);
    expect(world.exitCode).toBe(128 + TERM);
    expect(said(/main child is gone/)).toBe(false);
  });
});
