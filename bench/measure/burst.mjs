// Burst drain: how fast PID 1 reaps a burst of orphans that die at once. The child (bench/child.c
// "burst N") makes N orphans of PID 1 that wait in one process group. Two ways to time it:
// - drain: the bench stops PID 1 (SIGSTOP, which an ancestor namespace may send), kills the
//   group and waits until all N are zombies, then sends SIGCONT and times until PID 1 has
//   reaped the last. Only PID 1's reaping is timed: its wake-up and its reaping rate.
// - kill → reaped: PID 1 runs; from the SIGKILL to the group until the last is reaped, so the
//   orphans' own exits (the same under every init) are inside the time.
// "Reaped" is read from a pids cgroup around the namespace: pids.current counts a task until
// its parent reaps it, and reading it costs the reaper nothing (a /proc walk of 2000 children
// every few hundred µs would compete with it for the two CPUs).
import { closeSync, openSync, readFileSync, readSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { makeCgroup } from '../lib/cgroups.mjs';
import { childrenOf, msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { median, rotate } from '../lib/stats.mjs';

/** How often the bench reads pids.current while PID 1 reaps. */
const POLL_MS = 0.1;
const TIMEOUT_MS = 20_000;
const pause = new Int32Array(new SharedArrayBuffer(4));

function pidsCgroup(label) {
  const cgroup = makeCgroup('pids', `burst-${label}`);
  const fd = openSync(path.join(cgroup.dir, 'pids.current'), 'r');
  const buffer = Buffer.alloc(32);
  return {
    ...cgroup,
    tasks: () => Number(buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0))),
    async remove() {
      closeSync(fd);
      await cgroup.remove();
    },
  };
}

/** Host /proc fields of `pid`: state and process group. */
function stat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return { state: fields[0], pgrp: Number(fields[2]) };
  } catch {
    return undefined;  // gone
  }
}

function allThreadsStopped(pid) {
  return readdirSync(`/proc/${pid}/task`).every((tid) => {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      return text[text.lastIndexOf(')') + 2] === 'T';
    } catch {
      return true;
    }
  });
}

async function waitFor(probe, what) {
  const started = now();
  while (!probe()) {
    if (msBetween(started, now()) > TIMEOUT_MS) throw new Error(`burst: timed out waiting for ${what}`);
    await sleep(1);
  }
}

/** Reads pids.current until it is at most `target`; the moment it got there (ns). */
function pollUntil(cgroup, target) {
  const started = now();
  for (;;) {
    const at = now();
    if (cgroup.tasks() <= target) return at;
    if (msBetween(started, at) > TIMEOUT_MS) throw new Error(`burst: PID 1 did not reap in ${TIMEOUT_MS} ms`);
    Atomics.wait(pause, 0, 0, POLL_MS);
  }
}

async function oneBurst(candidate, child, size, stopFirst, label) {
  const cgroup = pidsCgroup(label);
  try {
    const run = await startPid1(candidate.argv([child, 'burst', String(size)]), { lines: true, prefix: cgroup.join });
    try {
      await run.expectLine('ready', 60_000);
      // The orphans are PID 1's children that share one process group (the main child leads
      // a group of its own, or shares PID 1's).
      const groups = new Map();
      for (const pid of childrenOf(run.pid1)) {
        const s = stat(pid);
        if (s) groups.set(s.pgrp, [...(groups.get(s.pgrp) ?? []), pid]);
      }
      const [group, orphans] = [...groups].sort((a, b) => b[1].length - a[1].length)[0];
      if (orphans.length !== size) throw new Error(`burst under ${candidate.name}: ${orphans.length} orphans, not ${size}`);
      const before = cgroup.tasks();
      let killedAt;
      if (stopFirst) {
        run.signal('SIGSTOP');
        await waitFor(() => allThreadsStopped(run.pid1), 'PID 1 to stop');
        process.kill(-group, 'SIGKILL');
        await waitFor(() => orphans.every((pid) => stat(pid)?.state === 'Z'), 'every orphan to be a zombie');
        if (cgroup.tasks() !== before) throw new Error(`burst under ${candidate.name}: a zombie was reaped while PID 1 was stopped`);
        killedAt = now();
        run.signal('SIGCONT');
      } else {
        killedAt = now();
        process.kill(-group, 'SIGKILL');
      }
      const reapedAt = pollUntil(cgroup, before - size);
      return msBetween(killedAt, reapedAt);
    } finally {
      await run.kill();
    }
  } finally {
    await cgroup.remove();
  }
}

/** `rounds` bursts of `size` orphans per candidate and way, candidates interleaved. */
export async function measureBurst(candidates, child, { rounds, size }) {
  const drain = new Map(candidates.map((c) => [c.name, []]));
  const killToReaped = new Map(candidates.map((c) => [c.name, []]));
  let n = 0;
  for (let round = 0; round < rounds; round++) {
    for (const c of rotate(candidates, round)) {
      drain.get(c.name).push(await oneBurst(c, child, size, true, String(n++)));
      killToReaped.get(c.name).push(await oneBurst(c, child, size, false, String(n++)));
    }
  }
  const out = { rounds, size, byCandidate: {} };
  for (const c of candidates) {
    out.byCandidate[c.name] = {
      drainMs: median(drain.get(c.name)),
      killToReapedMs: median(killToReaped.get(c.name)),
      drainRounds: drain.get(c.name),
      killToReapedRounds: killToReaped.get(c.name),
    };
  }
  return out;
}
