// The stop's deadline as policy: when the native guarantee (native/stop_deadline.h) fires, and
// what it says. The lifecycle acts first in every run where JS works: its last moment is the
// grace period's end plus the kill round's backstop, and the deadline comes a margin later.
import { exitStatus } from './executor';
import { KILL_BACKSTOP_SECONDS } from './lifecycle';
import { EXIT } from '../config/exit-codes';
import type { Host } from '../platform/host';
import { CHILD_SESSION, StopDeadline } from '../platform/native';
import { type Logger, QUIET } from '../platform/log';
import type { Options } from '../config/options';
import { signalName } from '../platform/signals';

/** Exit status when the native stop deadline ended sexton; documented in the README. */
export const STOP_DEADLINE_EXIT = EXIT.stopDeadline;
/** How long after the lifecycle's last moment the deadline waits: JS's timers run late on a busy machine. */
export const STOP_DEADLINE_MARGIN_SECONDS = 1;

/**
 * How long, as PID 1, JS has to answer the main child's exit before the addon sends the leftovers
 * TERM itself. A working loop answers in milliseconds (under qemu's TCG, hundreds). At a cgroup v2
 * memory limit held by the app's workers, v2 reclaims sexton's file-backed code first, and the
 * loop may fault forever without an OOM kill (a 32 MiB guest cgroup: never answered in 300 s);
 * the TERM ends the workers, and with them the pressure. tini leaves at once there.
 */
export const MAIN_EXIT_ANSWER_MS = 2000;

export interface DeadlineSettings {
  /** The longest the stop signal may wait before it is forwarded: --drain-delay. */
  drainCap: number;
  grace: number;
}

/** Milliseconds from the stop signal's arrival to the deadline. */
export function stopDeadlineMilliseconds({ drainCap, grace }: DeadlineSettings): number {
  // Rounded once, in milliseconds: 0.1 + 0.2 seconds must not become 301 ms.
  return Math.round((drainCap + grace) * 1000) + (KILL_BACKSTOP_SECONDS + STOP_DEADLINE_MARGIN_SECONDS) * 1000;
}

/** The addon's line when JS did not answer the main child's exit, and its line at the deadline after it. */
export function mainExitMessages(milliseconds: number): { term: string; deadline: string } {
  return {
    term: `the main child exited ${MAIN_EXIT_ANSWER_MS / 1000}s ago and sexton's JavaScript has not answered `
      + "(blocked, or its code pages reclaimed at a memory limit): TERM to every process left, by the addon",
    deadline: `stop deadline: ${milliseconds / 1000}s after that TERM the stop sequence had not finished: `
      + "SIGKILL to every process left, exiting with the main child's status (after --remap-exit)",
  };
}

/** The line the addon writes when the deadline fires, formatted before anything can go wrong. */
export function stopDeadlineMessage(stopSignalName: string, milliseconds: number): string {
  return `stop deadline: ${milliseconds / 1000}s after ${stopSignalName} the stop sequence had not finished ` +
    `(sexton's JavaScript was blocked or failing): SIGKILL to every process left, exiting ${STOP_DEADLINE_EXIT}`;
}

export interface DeadlineContext extends DeadlineSettings {
  stopSignal: number;
  stopSignalName: string;
  isInit: boolean;
  /** The main child leads a process group of its own (not dumb-init's --single-child). */
  childGroup: boolean;
  procTrusted: boolean;
  remapExit: Set<number>;
  /** Formats the line now (logger.preformat): nothing is formatted when the deadline fires. */
  format(message: string, fields: Record<string, unknown>): string;
}

/** What the addon is told before the spawn; undefined without a stop sequence (stop signal 0). */
export function stopDeadlineFor(c: DeadlineContext): StopDeadline | undefined {
  if (c.stopSignal <= 0) return undefined;
  const milliseconds = stopDeadlineMilliseconds(c);
  const mainExit = mainExitMessages(milliseconds);
  return {
    signal: c.stopSignal,
    milliseconds,
    exitCode: STOP_DEADLINE_EXIT,
    line: c.format(stopDeadlineMessage(c.stopSignalName, milliseconds), { exitCode: STOP_DEADLINE_EXIT }),
    killNamespace: c.isInit,
    childGroup: c.childGroup,
    // As PID 1 kill(-1) reaches everything unseen; elsewhere only /proc names the descendants.
    walkProc: !c.isInit && c.procTrusted,
    // Only PID 1 can reach what is left unseen (kill(-1)); elsewhere the main child's exit arms nothing.
    mainExitAnswerMs: c.isInit ? MAIN_EXIT_ANSWER_MS : 0,
    mainExitTermLine: c.format(mainExit.term, {}),
    mainExitLine: c.format(mainExit.deadline, {}),
    // The executor's rule, applied now to every status: JS may be stuck when it is needed. Not
    // --strict, which weighs what /proc shows, and nothing is read at the deadline.
    mainExitCodes: Buffer.from(Array.from({ length: 256 },
      (_, raw) => exitStatus({ exitCode: raw, signal: 0 }, { remapExit: c.remapExit, strict: false }, []).code)),
  };
}

/**
 * Tells the addon, before the spawn (Supervisor.start): the deadline exists from the stop signal
 * on. Its values are checked once, at the typed boundary (load-native.ts).
 */
export function setStopDeadline({ native, isInit, procTrusted }: Host, options: Options, log: Logger): void {
  const { stopSignal, drainDelay: drainCap, grace, remapExit } = options;
  const d = stopDeadlineFor({
    stopSignal, stopSignalName: signalName(stopSignal), drainCap, grace, isInit, procTrusted, remapExit,
    childGroup: options.childSession !== CHILD_SESSION.sameGroup,
    format: (message, fields) => log.preformat(QUIET, message, fields),
  });
  if (d) native.setStopDeadline(d.signal, d.milliseconds, d.exitCode, d.line, d.killNamespace, d.childGroup,
    d.walkProc, d.mainExitAnswerMs, d.mainExitTermLine, d.mainExitLine, d.mainExitCodes);
}
