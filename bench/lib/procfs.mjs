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

/** Context switches (voluntary + involuntary) of each thread, by tid, with its name. */
export function contextSwitches(pid) {
  const threads = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = fieldsOf(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
      const switches = Number(status.voluntary_ctxt_switches) + Number(status.nonvoluntary_ctxt_switches);
      threads.set(tid, { name: status.Name, switches });
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

/** The last pid the kernel handed out (machine-wide): pids used per second = fork rate. */
export function lastPid() {
  return Number(readFileSync('/proc/loadavg', 'utf8').trim().split(' ').at(-1));
}
