// What the bench reads about an init from the host's /proc.
import { readdirSync, readFileSync } from 'node:fs';
import { childrenOf } from './pid1.mjs';

function fieldsOf(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) out[line.slice(0, colon)] = line.slice(colon + 1).trim();
  }
  return out;
}

const kib = (value) => Number.parseInt(value, 10);

/** Resident memory in KiB: total, private anonymous, file-backed, and proportional (Pss). */
export function memoryOf(pid) {
  const status = fieldsOf(readFileSync(`/proc/${pid}/status`, 'utf8'));
  const rollup = fieldsOf(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  return { vmRss: kib(status.VmRSS), rssAnon: kib(status.RssAnon), rssFile: kib(status.RssFile), pss: kib(rollup.Pss) };
}

/** x86-64 numbers of the syscalls that idle inits and Node's threads sleep in. */
const SLEEPING_IN = { 0: 'read', 7: 'poll', 128: 'rt_sigtimedwait', 202: 'futex', 230: 'clock_nanosleep', 232: 'epoll_wait', 247: 'waitid', 281: 'epoll_pwait' };

/**
 * What a thread is: its name, "main" for the thread group leader, and the syscall it sleeps in
 * (Node 22 names none of its threads, so this tells the event loop from V8's workers, the reaper).
 */
function threadRole(pid, tid, name) {
  let syscall = '';
  try {
    const number = readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'utf8').split(' ')[0];
    syscall = SLEEPING_IN[number] ?? `syscall ${number}`;
  } catch {
    // gone, or running
  }
  return [name, String(tid) === String(pid) ? 'main' : '', syscall && `in ${syscall}`].filter(Boolean).join(' ');
}

/** Context switches (voluntary + involuntary) of each thread, by tid, with what it is. */
export function contextSwitches(pid) {
  const threads = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = fieldsOf(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
      const switches = Number(status.voluntary_ctxt_switches) + Number(status.nonvoluntary_ctxt_switches);
      threads.set(tid, { name: threadRole(pid, tid, status.Name), switches });
    } catch {
      // the thread ended
    }
  }
  return threads;
}

/** Zombies waiting for `pid` to reap them: its children in state Z. */
export function zombieChildren(pid) {
  let zombies = 0;
  for (const child of childrenOf(pid)) {
    try {
      const stat = readFileSync(`/proc/${child}/stat`, 'latin1');
      if (stat[stat.lastIndexOf(')') + 2] === 'Z') zombies++;
    } catch {
      // reaped meanwhile
    }
  }
  return zombies;
}

/** The last pid the kernel handed out, machine-wide: pids used per second = fork rate. */
export function lastPid() {
  return Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ').at(-1));
}

/** Pids handed out between two lastPid() readings; pids wrap around at pid_max. */
export function pidsBetween(first, last) {
  if (last >= first) return last - first;
  return last + Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) - first;
}
