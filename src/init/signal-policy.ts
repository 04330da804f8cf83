// What the native signal handlers do with each signal, set from the options, and the log's line
// for what they did.
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
