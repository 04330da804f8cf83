// Run a command as PID 1 of a fresh PID namespace, under a chosen init, and watch its
// zombies from outside through /proc.
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { tmpdir } from 'node:os';
import { commandOf, ProcessInfo, readProcess } from '../platform/procfs';
import { childrenOf, inPidNamespace, makePidsCgroup, namespacePid, namespaceProcesses, pid1Exiting } from './namespace';
import type { StatsSnapshot } from '../report/stats';
import { Verdict, verdictOf } from './verdict';

/** A zombie whose live parent has not waited for it this long counts as leaked by that parent. */
const LINGER_MS = 500;
/** A zombie this old when PID 1 exits was not about to be reaped: a working init takes ~1 ms. */
const LEFT_AT_EXIT_MS = 100;

/** 'none' (the command is PID 1), 'sexton', or an init's command prefix such as 'tini --'. */
export type InitChoice = 'none' | 'sexton' | string | string[];

export interface Sample {
  /** Milliseconds since the run started. */
  atMs: number;
  zombies: number;
  /** Processes in the namespace, PID 1 and zombies included. */
  processes: number;
}

export interface ZombieParent {
  /** The parent's pid inside the namespace. */
  pid: number;
  command: string;
  /** The most zombies it held at once. */
  zombies: number;
  /** How long its oldest zombie had waited, at most. */
  oldestMs: number;
}

export interface RunOptions {
  init?: InitChoice;
  /** Send the stop signal to PID 1 this long after start (default: never, wait for exit). */
  stopAfterMs?: number;
  stopSignal?: NodeJS.Signals;
  /** SIGKILL the whole namespace this long after start (default 30 s). */
  timeoutMs?: number;
  /** SIGKILL the whole namespace this long after the stop signal (default 5 s): a PID 1
   *  without a handler never even sees SIGTERM. */
  killAfterStopMs?: number;
  sampleEveryMs?: number;
  /** Run under a pids cgroup with this limit (like a pod's pid limit). */
  pidsMax?: number;
  env?: Record<string, string>;
  onSample?: (sample: Sample) => void;
  /** Called for each line the command writes to stdout; `stop` schedules the stop signal. */
  onLine?: (line: string, stop: (afterMs: number) => void) => void;
}

export interface Pid1Report {
  command: string[];
  init: string;
  /** PID 1's exit code; null when it had to be killed. */
  exitCode: number | null;
  /** PID 1 did not exit by itself (at the timeout, or killAfterStopMs after the stop signal). */
  timedOut: boolean;
  durationMs: number;
  peakZombies: number;
  /** Zombies older than 500 ms in the last sample before the stop signal (or before PID 1 exited). */
  zombiesBeforeStop: number;
  /** Of those, the ones live parents other than PID 1 held: the app's bug, no init can reap them. */
  zombiesHeldByLiveParents: number;
  /**
   * Zombies still there when PID 1 exited or was killed: the init's failure. When the harness
   * kills PID 1, those of a sample taken just before; under sexton, sexton's own count at exit
   * (and any zombie the harness saw orphaned to PID 1 for over 500 ms); for other inits, those
   * older than 100 ms in the last sample before PID 1 began to exit.
   */
  zombiesLeftAtExit: number;
  /** What the run proved: see Verdict. */
  verdict: Verdict;
  /** False when PID 1 never showed up (unshare refused, the init is missing): nothing was proven. */
  ran: boolean;
  /** With init 'sexton': sexton's own final stats (its --stats-file written at exit). */
  sextonStats?: StatsSnapshot;
  /** Live parents (not PID 1) that left a zombie unwaited for over 500 ms, with their most zombies at once. */
  zombieParents: ZombieParent[];
  samples: Sample[];
  stdout: string;
  stderr: string;
}

/** A file of dist/, found from the bundle (dist/harness.js) or from the sources (src/harness). */
export function distFile(name: string): string {
  const bundled = path.join(__dirname, name);
  return existsSync(bundled) ? bundled : path.resolve(__dirname, '..', '..', 'dist', name);
}

export const SEXTON_ENTRY = distFile('sexton.js');
/** sexton with a short grace period, so that stopping a leaking pod takes seconds. */
const SEXTON_INIT = [process.execPath, SEXTON_ENTRY, '--grace', '2', '--status-socket', 'none', '--'];

export function initPrefix(init: InitChoice = 'sexton'): string[] {
  if (Array.isArray(init)) return init;
  if (init === 'none') return [];
  if (init === 'sexton') return SEXTON_INIT;
  return init.split(/\s+/).filter(Boolean);
}

/** For init 'sexton': a stats file for sexton's final report, and the prefix that writes it. */
function sextonStatsFile(init: InitChoice = 'sexton'): { prefix: string[]; read(): StatsSnapshot | undefined } | undefined {
  if (init !== 'sexton') return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-harness-'));
  const file = path.join(dir, 'stats.json');
  return {
    prefix: [...SEXTON_INIT.slice(0, -1), '--stats-file', file, '--'],
    read() {
      try {
        return JSON.parse(readFileSync(file, 'utf8')) as StatsSnapshot;
      } catch {
        return undefined;
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

function initLabel(init: InitChoice = 'sexton'): string {
  return Array.isArray(init) ? init.join(' ') : init;
}

export async function runAsPid1(command: string[], options: RunOptions = {}): Promise<Pid1Report> {
  const statsFile = sextonStatsFile(options.init);
  const argv = [...(statsFile?.prefix ?? initPrefix(options.init)), ...command];
  const unshare = inPidNamespace(argv);
  const cgroup = options.pidsMax === undefined ? undefined : makePidsCgroup(options.pidsMax);
  // Join the cgroup before unshare forks, so that everything in the namespace counts against it.
  const launch = cgroup ? ['/bin/sh', '-c', `echo $$ > ${cgroup.dir}/cgroup.procs && exec "$@"`, 'sh', ...unshare] : unshare;
  const started = Date.now();
  const proc = execa(launch[0], launch.slice(1), {
    reject: false, stdin: 'ignore', env: options.env, timeout: options.timeoutMs ?? 30_000, killSignal: 'SIGKILL',
  });
  let stdout = '';
  let pending = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() as string;
    for (const line of lines) options.onLine?.(line, scheduleStop);
  });

  let sampler: NodeJS.Timeout | undefined;
  let stopper: NodeJS.Timeout | undefined;
  let killer: NodeJS.Timeout | undefined;
  let killedAfterStop = false;
  function scheduleStop(afterMs: number): void {
    clearTimeout(stopper);
    stopper = setTimeout(() => {
      sample();
      stopSent = true;
      // The end comes soon: sample closely, so that the last sample is near PID 1's exit.
      clearInterval(sampler);
      sampler = setInterval(sample, Math.min(10, options.sampleEveryMs ?? 50));
      // Only while pid1 is still the PID 1 we found: once gone, its pid may be someone else's.
      try {
        if (pid1 !== undefined && readProcess(pid1)?.startTime === pid1Started) process.kill(pid1, options.stopSignal ?? 'SIGTERM');
      } catch {
        // already gone
      }
      killer = setTimeout(() => {
        killedAfterStop = true;
        // What PID 1 leaves is what is there now; the kernel's teardown that follows is no sample.
        sample();
        clearInterval(sampler);
        proc.kill('SIGKILL');  // unshare --kill-child takes the namespace with it
      }, options.killAfterStopMs ?? 5000);
    }, afterMs);
  }
  if (options.stopAfterMs !== undefined) scheduleStop(options.stopAfterMs);

  const samples: Sample[] = [];
  const parents = new Map<number, ZombieParent>();
  const firstSeen = new Map<string, number>();
  const orphanedSince = new Map<string, number>();
  const keyOf = (z: ProcessInfo) => `${z.pid}:${z.startTime}`;
  let pid1: number | undefined;
  let pid1Started: number | undefined;
  let stopSent = false;
  let zombiesBeforeStop = 0;
  let zombiesHeldByLiveParents = 0;
  let last: { atMs: number; zombies: ProcessInfo[] } = { atMs: 0, zombies: [] };
  const lingering = (zombies: ProcessInfo[], now: number, ms = LINGER_MS) => zombies.filter((z) => now - (firstSeen.get(keyOf(z)) ?? now) >= ms);
  const sample = () => {
    if (pid1 === undefined) {
      pid1 = childrenOf(proc.pid as number)[0];
      if (pid1 === undefined) return;
      pid1Started = readProcess(pid1)?.startTime;
    }
    if (pid1Exiting(pid1)) return;  // the kernel's teardown, not the init's doing
    const processes = namespaceProcesses(pid1);
    if (processes.length === 0) return;
    const zombies = processes.filter((p) => p.state === 'Z');
    const now = Date.now() - started;
    for (const z of zombies) {
      const key = keyOf(z);
      const since = firstSeen.get(key) ?? now;
      firstSeen.set(key, since);
      if (z.ppid === pid1) {
        if (!orphanedSince.has(key)) orphanedSince.set(key, now);
        continue;
      }
      // A parent that is just about to wait is not leaking: count zombies that linger.
      if (now - since < LINGER_MS) continue;
      const held = zombies.filter((o) => o.ppid === z.ppid);
      const oldestMs = now - Math.min(...held.map((o) => firstSeen.get(keyOf(o)) ?? now));
      const known = parents.get(z.ppid);
      if (known) {
        known.zombies = Math.max(known.zombies, held.length);
        known.oldestMs = Math.max(known.oldestMs, oldestMs);
        continue;
      }
      const parent = processes.find((p) => p.pid === z.ppid);
      // Shown as the program's name and arguments: the path it ran from says little.
      const command = parent ? commandOf(parent).replace(/^\S*\//, '') : '?';
      parents.set(z.ppid, { pid: namespacePid(z.ppid), command, zombies: held.length, oldestMs });
    }
    const s = { atMs: now, zombies: zombies.length, processes: processes.length };
    samples.push(s);
    last = { atMs: now, zombies };
    if (!stopSent) {
      // A zombie that a parent or the init is about to reap is not left behind: count lingering ones.
      const old = lingering(zombies, now);
      zombiesBeforeStop = old.length;
      zombiesHeldByLiveParents = old.filter((z) => z.ppid !== pid1).length;
    }
    options.onSample?.(s);
  };
  sampler = setInterval(sample, options.sampleEveryMs ?? 50);

  const result = await proc;
  clearInterval(sampler);
  clearTimeout(stopper);
  clearTimeout(killer);
  cgroup?.remove();
  const timedOut = Boolean(result.timedOut) || killedAfterStop;
  const sextonStats = statsFile?.read();
  let zombiesLeftAtExit = timedOut ? last.zombies.length : lingering(last.zombies, last.atMs, LEFT_AT_EXIT_MS).length;
  if (!timedOut && sextonStats) {
    // The last sample may come just before sexton's final kill and reap: sexton counted at exit.
    const orphanedTooLong = last.zombies.filter((z) => last.atMs - (orphanedSince.get(keyOf(z)) ?? last.atMs) >= LINGER_MS);
    zombiesLeftAtExit = Math.max(sextonStats.zombieCount, orphanedTooLong.length);
  }
  const zombieParents = [...parents.values()];
  const ran = samples.length > 0;
  return {
    command,
    init: initLabel(options.init),
    exitCode: timedOut ? null : result.exitCode ?? null,
    timedOut,
    durationMs: Date.now() - started,
    peakZombies: Math.max(0, ...samples.map((s) => s.zombies)),
    zombiesBeforeStop,
    zombiesHeldByLiveParents,
    zombiesLeftAtExit,
    verdict: verdictOf({ ran, timedOut, zombiesLeftAtExit, zombieParents }),
    ran,
    sextonStats,
    zombieParents,
    samples,
    stdout,
    stderr: String(result.stderr ?? ''),
  };
}
