// What the native signal handlers do with each signal, set from the options, and the log's line
// for what they did; and whether the runtime's stop signal will reach sexton at all, said once at
// the start. A container runtime sends its stop signal to the container's PID 1. As PID 1, sexton
// gets it. Otherwise the two ways it goes wrong are told apart: sexton started by a PID 1 that is
// no init (a shell entrypoint that runs `sexton -- app` without exec) hears nothing unless that
// PID 1 forwards; and sexton neither PID 1 nor a subreaper cannot reap its child's orphans.
import { DEBUG, Logger } from '../platform/log';
import { Native, NO_CHILD_YET, Notice, NOTIFY_ONLY } from '../platform/native';
import { constants, errnoName } from '../platform/os-constants';
import type { Options } from '../config/options';
import { realtimeRange, signalName } from '../platform/signals';

export function applySignalPolicy(native: Native, options: Options): void {
  for (const [from, to] of options.rewrites) native.setSignalAction(from, to);
  // With a drain delay the stop signal waits for policy; without one it goes out at once.
  if (options.drainDelay > 0) native.setSignalAction(options.stopSignal, NOTIFY_ONLY);
  native.setForwardToGroup(options.pgroup);
  if (options.pdeathSignal !== undefined) native.setParentDeathSignal(options.pdeathSignal);
}

/**
 * Until the child runs, JS hears of every signal. From then on only of the stop signal (and of
 * failures), unless every signal is logged: a flood of forwarded signals then costs JS nothing.
 */
export function listenOnlyForPolicy(native: Native, options: Options): void {
  for (let signal = 1; signal <= realtimeRange().rtmax; signal++) {
    native.setSignalNotify(signal, options.verbosity >= DEBUG || signal === options.stopSignal);
  }
}

/** The log's line for what the handler did with a signal (forwarded to `target`, or dropped). */
export function logSignalHandled(notice: Notice, target: string, log: Logger): void {
  const name = signalName(notice.signal);
  if (notice.action === 0) return log.debug(`dropped ${name}`);
  if (notice.action < 0) return;
  const as = notice.action === notice.signal ? '' : ` as ${signalName(notice.action)}`;
  if (notice.errno === 0) log.debug(`forwarded ${name}${as} to ${target}`);
  else if (notice.errno === NO_CHILD_YET) log.debug(
    `${name} arrived with no child to forward it to (a child about to start gets it once it runs)`);
  else if (notice.errno !== constants.errno.ESRCH) log.warn(
    `could not forward ${name}${as} to ${target}: ${errnoName(notice.errno)}`);
}

/**
 * Inits that forward signals to their child: under them sexton hears the stop. sexton names
 * itself sexton (src/boot/first-handlers.ts); `node` is a sexton that did not yet.
 */
const FORWARDING_INITS = new Set(['tini', 'tini-static', 'dumb-init', 'catatonit', 'docker-init', 'sexton', 'node']);

export interface StopPathFacts {
  isInit: boolean;
  subreaper: boolean;
  /** Whether /proc is this namespace's: only then is /proc/1 our PID 1. */
  procTrusted: boolean;
  ppid: number;
  /** PID 1's command name (/proc/1/comm), when readable. */
  pid1Name?: string;
}

export function stopPathWarnings(f: StopPathFacts): string[] {
  if (f.isInit) return [];
  const out: string[] = [];
  const name = f.pid1Name?.trim();
  if (f.procTrusted && f.ppid === 1 && name && !FORWARDING_INITS.has(name)) {
    out.push(`not PID 1: PID 1 here is '${name}', and a container runtime sends its stop signal to PID 1; unless ` +
      `'${name}' forwards it, sexton never hears the stop and the app is SIGKILLed at the runtime's timeout (make ` +
        `sexton the entrypoint, or exec it)`);
  }
  if (!f.subreaper) out.push(
    `not PID 1 and not a subreaper: zombie reaping won't work for orphans of the child (pid ${f.ppid}'s init reaps ` +
      `them, not sexton)`);
  return out;
}

/**
 * The stop signal of the official image of each program that does not stop on TERM: an image
 * built FROM it inherits its STOPSIGNAL, and the runtime then sends that signal, not TERM.
 */
const IMAGE_STOP_SIGNALS: [RegExp, string][] = [
  [/^nginx$/, 'QUIT'], [/^php-fpm[\d.]*$/, 'QUIT'], [/^(httpd|httpd-foreground|apache2)$/, 'WINCH'],
  [/^postgres$/, 'INT'], [/^haproxy$/, 'USR1'],
];

export interface StopSignalFacts {
  isInit: boolean;
  /** The stop signal sexton stops on; 0: no stop sequence (a personality's default). */
  stopSignal: number;
  stopSignalName: string;
  /** --stop-signal or SEXTON_STOP_SIGNAL was given: the operator has chosen. */
  stopSignalGiven: boolean;
  /** The command's first word. */
  program: string;
  /** Each --rewrite as [from, to] names. */
  rewrites: [string, string][];
}

/**
 * One start-up line when the container's stop signal may not be sexton's. Nothing in a container
 * tells its PID 1 which signal the runtime will send (the image's STOPSIGNAL and the pod's
 * lifecycle.stopSignal stay with the runtime), so sexton speaks only where something it can see
 * points away from TERM: it is PID 1 (the one the runtime signals), the operator chose no stop
 * signal, and either the program is one whose official image stops with another signal, or
 * another signal is rewritten to the stop signal (`-r QUIT:TERM`: QUIT is expected as a stop).
 */
export function stopSignalWarning(f: StopSignalFacts): string | undefined {
  if (!f.isInit || f.stopSignalGiven || f.stopSignal <= 0) return undefined;
  const program = f.program.slice(f.program.lastIndexOf('/') + 1);
  const image = IMAGE_STOP_SIGNALS.find(([pattern]) => pattern.test(program))?.[1];
  const expected = f.rewrites.find(([from, to]) => from !== f.stopSignalName && to === f.stopSignalName)?.[0];
  const stop = f.stopSignalName;
  const other = image !== undefined && image !== stop ? image : expected;
  if (other === undefined) return undefined;
  const why = other === image
    ? `'${program}' images stop with ${image} (their STOPSIGNAL)`
    : `${other} is rewritten to ${stop}, as a stop would be`;
  return "the container's stop signal cannot be seen from inside (an image's STOPSIGNAL and a pod's "
    + `lifecycle.stopSignal reach only the runtime), and ${why}: if the runtime sends ${other}, sexton only `
    + 'forwards it (no drain, /readyz stays ready, no grace period). Set SEXTON_STOP_SIGNAL to the '
    + `container's stop signal (SEXTON_STOP_SIGNAL=${stop} if it is ${stop})`;
}
