// Helpers for the stop-sequence tests: fixture paths, readiness lines, and watching host pids.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { FIXTURES, type Pid1Run } from './pid1';

export const TINI = '/usr/bin/tini';

export function fixture(name: string): string {
  return path.join(FIXTURES, name);
}

/** Fails (never skips) when Debian's tini, the comparison baseline, is missing. */
export function requireTini(): void {
  if (!existsSync(TINI)) {
    throw new Error(`${TINI} is missing: this test compares sexton with Debian's tini; install it with "apt-get install -y tini"`);
  }
}

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
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}


/** sexton's stderr as lines without the "sexton: " prefix. */
export function logLines(stderr: string): string[] {
  return stderr.split('\n').filter((l) => l.startsWith('sexton: ')).map((l) => l.slice('sexton: '.length));
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Parent pid of pid (host view), or 0 once it is gone. */
export function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}
