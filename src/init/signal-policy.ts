// What the native signal handlers do with each signal, set from the options.
import { DEBUG } from '../platform/log';
import { Native, NOTIFY_ONLY } from '../platform/native';
import type { Options } from '../config/options';
import { realtimeRange } from '../platform/signals';

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
