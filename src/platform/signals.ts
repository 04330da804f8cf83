// Signal names and numbers: "TERM", "SIGTERM", "15", "RTMIN+3", "SIGRTMAX-1".
import { constants } from './os-constants';
import { libcOf } from './libc';

const standard = constants.signals as Record<string, number>;

/** Signals sexton has no handler for: KILL and STOP cannot be caught, CHLD is the reaper's. */
export const UNHANDLED = new Set([standard.SIGKILL, standard.SIGSTOP, standard.SIGCHLD]);

let realtime: { rtmin: number; rtmax: number } | undefined;

/**
 * SIGRTMIN differs between glibc (34: it keeps 32 and 33 for its threads) and musl (35); both
 * end at 64 on Linux. A fact of the C library this process runs on, so no addon is needed.
 */
export function realtimeRange(): { rtmin: number; rtmax: number } {
  realtime ??= { rtmin: libcOf() === 'musl' ? 35 : 34, rtmax: 64 };
  return realtime;
}

/** The number of a signal given by name or number, or undefined when there is no such signal. */
export function parseSignal(text: string): number | undefined {
  const trimmed = text.trim().toUpperCase();
  const { rtmin, rtmax } = realtimeRange();
  if (/^\d+$/.test(trimmed)) {
    const n = Number(trimmed);
    return n >= 1 && n <= rtmax && (n < 32 || n >= rtmin) ? n : undefined;
  }
  const name = trimmed.startsWith('SIG') ? trimmed.slice(3) : trimmed;
  const rt = /^RT(MIN|MAX)(?:([+-])(\d+))?$/.exec(name);
  if (rt) {
    const base = rt[1] === 'MIN' ? rtmin : rtmax;
    const offset = rt[3] === undefined ? 0 : Number(rt[3]) * (rt[2] === '-' ? -1 : 1);
    const n = base + offset;
    return n >= rtmin && n <= rtmax ? n : undefined;
  }
  return standard[`SIG${name}`];
}

const preferredNames = new Map<number, string>();
for (const [name, n] of Object.entries(standard)) {
  // SIGIOT and SIGPOLL are aliases of ABRT and IO; keep the names people use.
  if (name === 'SIGIOT' || name === 'SIGPOLL' || name === 'SIGUNUSED') continue;
  if (!preferredNames.has(n)) preferredNames.set(n, name.slice(3));
}

/** "TERM", "RTMIN+3", "RTMAX"; the number as text when it has no name. */
export function signalName(n: number): string {
  const known = preferredNames.get(n);
  if (known) return known;
  const { rtmin, rtmax } = realtimeRange();
  if (n >= rtmin && n <= rtmax) {
    const half = rtmin + Math.floor((rtmax - rtmin) / 2);
    if (n === rtmin) return 'RTMIN';
    if (n === rtmax) return 'RTMAX';
    return n <= half ? `RTMIN+${n - rtmin}` : `RTMAX-${rtmax - n}`;
  }
  return String(n);
}
