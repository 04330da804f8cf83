// Run a command as PID 1 of a fresh PID namespace (inside a user namespace when not privileged),
// under a chosen init, and watch its zombies from outside through /proc.
import type { ResultPromise } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { tmpdir } from 'node:os';
import { startInPidNamespace } from './namespace';
import { makePidsCgroup, type PidsCgroup } from './pids-cgroup';
import { NamespaceMode, ownNamespaceMode, readUserNamespaceSysctls, whyNotRun } from './userns';
import type { StatsSnapshot } from '../report/stats';
import { Verdict, verdictOf } from './verdict';
import { LEFT_AT_EXIT_MS, LINGER_MS, NamespaceWatch, type Sample, type ZombieParent } from './watch';

export type { Sample, ZombieParent } from './watch';

/** 'none' (the command is PID 1), 'sexton', or an init's command prefix such as 'tini --'. */
export type InitChoice = 'none' | 'sexton' | string | string[];

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
  /** Run under a pids cgroup with this limit (like a pod's pid limit), where one can be made:
   *  see the report's pidsLimitUnavailable. */
  pidsMax?: number;
  /** 'pid' (needs CAP_SYS_ADMIN) or 'user' (a user namespace first, any user where the kernel
   *  allows it); default 'pid' with CAP_SYS_ADMIN, else 'user'. */
  namespace?: NamespaceMode;
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
  /** When PID 1 never ran: why, in one line (which sysctl forbids user namespaces, and how to lift it). */
  notRunReason?: string;
  /** The namespaces the run had: 'pid', or 'user' (a user namespace, for a caller without CAP_SYS_ADMIN). */
  namespace: NamespaceMode;
  /** pidsMax was asked for but no pids cgroup could be made: why, in one line; the run went on without it. */
  pidsLimitUnavailable?: string;
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
function sextonStatsFile(
  init: InitChoice = 'sexton',
): { prefix: string[]; read(): StatsSnapshot | undefined } | undefined {
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

/** A run under way: unshare (PID 1's parent) and the command's output as it comes. */
interface Started {
  proc: ResultPromise;
  startedAt: number;
  stdout(): string;
  namespace: NamespaceMode;
  cgroup?: PidsCgroup;
  pidsLimitUnavailable?: string;
  statsFile?: { read(): StatsSnapshot | undefined };
}

/** Start: unshare, in the pids cgroup when asked, with each stdout line handed to onLine. */
function start(command: string[], options: RunOptions, onLine: (line: string) => void): Started {
  const statsFile = sextonStatsFile(options.init);
  const argv = [...(statsFile?.prefix ?? initPrefix(options.init)), ...command];
  const namespace = options.namespace ?? ownNamespaceMode();
  const limit = options.pidsMax === undefined ? undefined : makePidsCgroup(options.pidsMax);
  const cgroup = limit?.cgroup;
  // Join the cgroup before unshare forks, so that everything in the namespace counts against it.
  const prefix = cgroup ? ['/bin/sh', '-c', `echo $$ > ${cgroup.dir}/cgroup.procs && exec "$@"`, 'sh'] : [];
  const startedAt = Date.now();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const proc = startInPidNamespace(argv, { namespace, prefix, env: options.env, timeoutMs });
  let stdout = '';
  let pending = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() as string;
    for (const line of lines) onLine(line);
  });
  return {
    proc, startedAt, stdout: () => stdout, namespace, cgroup, pidsLimitUnavailable: limit?.unavailable, statsFile,
  };
}

/**
 * Stop: the stop signal to PID 1 after `afterMs` (rescheduled by each call), then SIGKILL to the
 * whole namespace if PID 1 has not exited `killAfterStopMs` later.
 */
function stopper(run: Started, watch: NamespaceWatch, options: RunOptions) {
  let signalTimer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  let killed = false;
  return {
    schedule(afterMs: number): void {
      clearTimeout(signalTimer);
      signalTimer = setTimeout(() => {
        watch.sample();
        watch.stopSentNow();
        // The end comes soon: sample closely, so that the last sample is near PID 1's exit.
        watch.every(Math.min(10, options.sampleEveryMs ?? 50));
        watch.signalPid1(options.stopSignal ?? 'SIGTERM');
        killTimer = setTimeout(() => {
          killed = true;
          // What PID 1 leaves is what is there now; the kernel's teardown that follows is no sample.
          watch.sample();
          watch.end();
          run.proc.kill('SIGKILL');  // unshare --kill-child takes the namespace with it
        }, options.killAfterStopMs ?? 5000);
      }, afterMs);
    },
    /** PID 1 had to be killed after the stop signal. */
    killedAfterStop: () => killed,
    clear(): void {
      clearTimeout(signalTimer);
      clearTimeout(killTimer);
    },
  };
}

/** Verdict: what the watch saw and unshare's end, read into the report. */
function verdictReport(command: string[], options: RunOptions, run: Started, watch: NamespaceWatch,
  result: { exitCode?: number; timedOut?: boolean; stderr?: unknown }, killedAfterStop: boolean): Pid1Report {
  const timedOut = Boolean(result.timedOut) || killedAfterStop;
  const sextonStats = run.statsFile?.read();
  let zombiesLeftAtExit = timedOut ? watch.last.zombies.length : watch.lingering(LEFT_AT_EXIT_MS).length;
  if (!timedOut && sextonStats) {
    // The last sample may come just before sexton's final kill and reap: sexton counted at exit.
    zombiesLeftAtExit = Math.max(sextonStats.zombieCount, watch.orphanedFor(LINGER_MS).length);
  }
  const zombieParents = watch.zombieParents;
  const ran = watch.ran;
  const stderr = String(result.stderr ?? '');
  return {
    command,
    init: initLabel(options.init),
    exitCode: timedOut ? null : result.exitCode ?? null,
    timedOut,
    durationMs: Date.now() - run.startedAt,
    peakZombies: watch.peakZombies,
    zombiesBeforeStop: watch.zombiesBeforeStop,
    zombiesHeldByLiveParents: watch.zombiesHeldByLiveParents,
    zombiesLeftAtExit,
    verdict: verdictOf({ ran, timedOut, zombiesLeftAtExit, zombieParents }),
    ran,
    notRunReason: ran ? undefined : whyNotRun(stderr, run.namespace, readUserNamespaceSysctls()),
    namespace: run.namespace,
    pidsLimitUnavailable: run.pidsLimitUnavailable,
    sextonStats,
    zombieParents,
    samples: watch.samples,
    stdout: run.stdout(),
    stderr,
  };
}

export async function runAsPid1(command: string[], options: RunOptions = {}): Promise<Pid1Report> {
  // Lines arrive on later ticks, by when the stopper exists.
  let stop: ReturnType<typeof stopper> | undefined;
  const run = start(command, options, (line) => options.onLine?.(line, (afterMs) => stop?.schedule(afterMs)));
  const watch = new NamespaceWatch(run.proc.pid as number, run.startedAt, options.onSample);
  stop = stopper(run, watch, options);
  if (options.stopAfterMs !== undefined) stop.schedule(options.stopAfterMs);
  watch.every(options.sampleEveryMs ?? 50);

  const result = await run.proc;
  watch.end();
  stop.clear();
  run.cgroup?.remove();
  return verdictReport(command, options, run, watch, result, stop.killedAfterStop());
}
