// The one start path of the init, as sexton, tini or dumb-init: the guards, the log, the
// personality's own set-up, the supervisor. Everything that can fail fails here, before the
// child exists, as one line and a documented exit code (config/exit-codes.ts).
import { EXIT } from '../config/exit-codes';
import { UsageError } from '../config/options';
import { checkDescriptorRoom, descriptorsNeeded } from './descriptors';
import { disableChildProcess, keepInitAlive, shedNodeOptions } from './guards';
import { Supervisor } from '../init/supervisor';
import { checkUsablePaths } from './usable-paths';
import type { InitPlan, StartRequest } from '../personalities/run';
import { internalErrorText } from '../init/internal-error';
import { stopSignalWarning } from '../init/signal-policy';
import { signalName } from '../platform/signals';
import type { Host } from '../platform/host';
import { systemClock } from '../platform/host';
import { DEFAULT, writeOrDrop } from '../platform/log';
import { AddonLoadError } from '../platform/load-native';
import { Native, StartError } from '../platform/native';
import { procShowsOwnNamespace } from '../platform/procfs';
import { readText } from '../platform/read-text';

/** What the first handlers found (boot/first-handlers.ts): the addon, or why it failed. */
export interface Early {
  native?: Native;
  error?: unknown;
}

/** How a tool names itself in its messages, and words and codes bad usage. */
export interface Voice {
  name: string;
  usageError(error: UsageError): string;
  usageExit: number;
}

/** The machine sexton runs on, asked once: nothing below boot asks again. */
export function decideHost(native: Native, procRoot = '/proc', cgroupRoot = '/sys/fs/cgroup'): Host {
  const isInit = process.pid === 1;
  return {
    isInit,
    pid: process.pid,
    ppid: process.ppid,
    procTrusted: procShowsOwnNamespace(procRoot, process.pid),
    procRoot,
    cgroupRoot,
    pid1Name: isInit ? undefined : readText(`${procRoot}/1/comm`),
    native,
    clock: systemClock,
  };
}

function startInit(native: Native, plan: InitPlan): void {
  checkDescriptorRoom(descriptorsNeeded(plan.options));
  checkUsablePaths(plan.options);
  const log = plan.logger(native);
  keepInitAlive(log);
  shedNodeOptions(log, native);
  plan.prepare?.(native, log);
  const { options } = plan;
  const host = decideHost(native);
  const warning = stopSignalWarning({
    isInit: host.isInit, stopSignal: options.stopSignal, stopSignalName: signalName(options.stopSignal),
    stopSignalGiven: options.stopSignalGiven === true, program: options.command[0],
    rewrites: [...options.rewrites].map(([from, to]) => [signalName(from), signalName(to)]),
  });
  if (warning !== undefined) log.warn(warning);
  new Supervisor(options, log, host, plan.hooks).start();
  // The child runs: from here on the init may no longer bail (init/supervisor.ts, after the spawn).
  plan.afterSpawn?.();
}

/** Reads the command line with `request` and runs what it asks for, or exits as `voice` says. */
export function runInit(early: Early, voice: Voice, request: () => StartRequest): void {
  try {
    if (early.error) throw early.error;
    disableChildProcess();
    const wanted = request();
    if (wanted.kind === 'print') return writeOrDrop(wanted.fd, wanted.text);
    startInit(early.native as Native, wanted.plan);
  } catch (error) {
    if (error instanceof UsageError) {
      writeOrDrop(2, voice.usageError(error));
      process.exit(voice.usageExit);
    }
    if (error instanceof AddonLoadError || error instanceof StartError) {
      writeOrDrop(2, `${voice.name}: ${error.message}\n`);
      process.exit(EXIT.startFailure);
    }
    // Anything else is sexton's own bug: one line, no stack, no path of the build.
    writeOrDrop(2, `${voice.name}: internal error: ${internalErrorText(error, DEFAULT)}\n`);
    process.exit(EXIT.startFailure);
  }
}
