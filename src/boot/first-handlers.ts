// The first code the init runs. Until sexton has a handler, a signal sent to PID 1 of a
// namespace is dropped by the kernel: a TERM in the start-up window would be lost and the pod
// would wait out its whole grace period. So the addon's handlers go in before any other module
// of sexton's is evaluated; a signal that arrives now is kept and forwarded once the child
// exists (and the stop sequence starts when policy catches up from the native counters).
// Node's own start-up, before any of this runs, is a window no code of ours can close:
// docs/operations.md gives its size.
import type { Native } from '../platform/native';
import { loadNative } from '../platform/load-native';
import { requestedPersonality } from '../personalities/detect';
import { isTool } from '../config/tools';

function installEarly(): { native?: Native; error?: unknown } {
  if (isTool(process.argv[2]) && !requestedPersonality(process.argv, process.argv0, process.env)) return {};
  try {
    const native = loadNative();
    native.installSignalHandlers();
    // The process's name, the same on every Node line: the main thread is named by Node, `node`
    // on 22, `MainThread` on 24, `node-MainThread` on 26. ps, /proc/1/comm and the start-time check
    // of whether PID 1 forwards the stop signal read this name.
    native.setThreadName('sexton');
    // Now, before sexton's own threads and V8's workers that have not allocated yet take an
    // arena each (native/memory.h).
    native.shareOneMallocArena();
    return { native };
  } catch (error) {
    return { error };  // said by the CLI, with its exit code
  }
}

export const early = installEarly();
