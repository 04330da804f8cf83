// Whether the runtime's stop signal will reach sexton, said once at the start. A container
// runtime sends its stop signal to the container's PID 1. As PID 1, sexton gets it. Otherwise
// the two ways it goes wrong are told apart: sexton started by a PID 1 that is no init (a shell
// entrypoint that runs `sexton -- app` without exec) hears nothing unless that PID 1 forwards;
// and sexton neither PID 1 nor a subreaper cannot reap its child's orphans.
import { readFileSync } from 'node:fs';

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
    out.push(`not PID 1: PID 1 here is '${name}', and a container runtime sends its stop signal to PID 1; unless '${name}' forwards it, sexton never hears the stop and the app is SIGKILLed at the runtime's timeout (make sexton the entrypoint, or exec it)`);
  }
  if (!f.subreaper) out.push(`not PID 1 and not a subreaper: zombie reaping won't work for orphans of the child (pid ${f.ppid}'s init reaps them, not sexton)`);
  return out;
}

export function readPid1Name(): string | undefined {
  try {
    return readFileSync('/proc/1/comm', 'latin1');
  } catch {
    return undefined;
  }
}
