// How a personality (src/personalities) changes the supervisor's lifecycle: tini and dumb-init
// leave as soon as their main child does, and word some events their own way. sexton has none.
import type { Options } from '../config/options';
import type { Logger } from '../platform/log';
import type { Native } from '../platform/native';

export interface SupervisorHooks {
  /** The main child was reaped: return true to exit at once with its status (no grace period). */
  mainExited?(pid: number): boolean;
  /**
   * Each orphan reaped, once native.setReportOrphans(true) asked for them; `unreported` more
   * were reaped before it with no report of their own (JS had fallen behind).
   */
  orphanReaped?(pid: number, unreported: number): void;
  /** How a command that could not be executed is reported, and the status sexton exits with. */
  execFailure?(command: string, errno: number): { message: string; exitCode: number } | undefined;
}

/**
 * What sexton, tini and dumb-init each hand the one start path (boot/start-init.ts): the options,
 * where log lines go, their own set-up before the spawn, and the hooks above.
 */
export interface InitPlan {
  options: Options;
  /** The log, opening the addon's sinks it writes to. */
  logger(native: Native): Logger;
  /** Set-up of the personality's own, after the guards and before the spawn. */
  prepare?(native: Native, log: Logger): void;
  hooks?: SupervisorHooks;
  /** After the spawn, so it must not fail: dumb-init lets go of its working directory. */
  afterSpawn?(): void;
}

/** What a command line asks for: text to print (help, version, licence), or an init to run. */
export type StartRequest = { kind: 'print'; fd: 1 | 2; text: string } | { kind: 'run'; plan: InitPlan };
