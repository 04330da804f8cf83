// Helpers for the stop-sequence tests: fixture paths, readiness lines, and watching host pids.
import { type Pid1Run } from './pid1';
import { procStat } from './processes';


/** Waits for the fixture's "ready N M ..." line and returns the numbers on it. */
export async function readyPids(run: Pid1Run): Promise<number[]> {
  await run.waitFor(/^ready.*\n/m);
  const line = /^ready(.*)$/m.exec(run.stdout()) as RegExpExecArray;
  return line[1].trim().split(/\s+/).filter(Boolean).map(Number);
}

/** Epoch-ms stamps of every "SIGNAME <ms>" line that shutdown-signals.mjs printed. */
export function signalStamps(stdout: string, name: 'SIGINT' | 'SIGTERM'): number[] {
  return [...stdout.matchAll(new RegExp(`^${name} (\\d+)$`, 'gm'))].map((m) => Number(m[1]));
}

/** True while pid exists and is not a zombie (host view). */
export function isAlive(pid: number): boolean {
  const state = procStat(pid)?.state;
  return state !== undefined && state !== 'Z';
}

export function logLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('sexton: ')).map((l) => l.slice('sexton: '.length));
}


/** Parent pid of pid (host view), or 0 once it is gone. */
export function parentOf(pid: number): number {
  return procStat(pid)?.ppid ?? 0;
}
