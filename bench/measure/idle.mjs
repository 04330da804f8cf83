// Memory and idle wake-ups, from one run per candidate whose child just sleeps. All candidates
// run side by side (they are idle, so they do not disturb each other) after a settling second.
// Wake-ups are context switches of every thread of the init over the window: an init that
// sleeps until something happens has none. Memory is read at the end of the window, with the
// memory cgroup charge: each PID 1 runs in a memory cgroup of its own, and its charge is that
// cgroup's usage minus that of `sleep` alone as PID 1 (in the same round). A file page is charged
// to the cgroup that first read it: the node binary, already in the page cache, is not charged.
import { makeCgroup } from '../lib/cgroups.mjs';
import { contextSwitches, memoryOf } from '../lib/procfs.mjs';
import { childrenOf, sleep, startPid1, until } from '../lib/pid1.mjs';
import { median } from '../lib/stats.mjs';

const SETTLE_MS = 1000;

function switchesSince(before, after) {
  let total = 0;
  const byThread = {};
  for (const [tid, thread] of after) {
    const delta = thread.switches - (before.get(tid)?.switches ?? 0);
    total += delta;
    if (delta > 0) byThread[thread.name] = (byThread[thread.name] ?? 0) + delta;
  }
  return { total, byThread };
}

const SLEEP = ['/bin/sleep', '100000'];
const usage = (cgroup) => Number(cgroup.read('memory.usage_in_bytes')) / 1024;  // KiB, as memoryOf

async function oneRound(candidates, windowMs) {
  const runs = [];
  const cgroups = [];
  try {
    for (const argv of [SLEEP, ...candidates.map((c) => c.argv(SLEEP))]) {
      const cgroup = makeCgroup('memory', 'idle');
      cgroups.push(cgroup);
      runs.push(await startPid1(argv, { prefix: cgroup.join }));
    }
    await Promise.all(runs.slice(1).map((run) => until(() => childrenOf(run.pid1).length > 0, 5000, `the child of ${run.describe()}`)));
    await sleep(SETTLE_MS);
    const before = runs.map((run) => contextSwitches(run.pid1));
    await sleep(windowMs);
    const sleepAlone = usage(cgroups[0]);
    return runs.slice(1).map((run, i) => ({
      wakeups: switchesSince(before[i + 1], contextSwitches(run.pid1)),
      memory: { ...memoryOf(run.pid1), charge: usage(cgroups[i + 1]) - sleepAlone },
    }));
  } finally {
    await Promise.all(runs.map((run) => run.kill()));
    for (const cgroup of cgroups) await cgroup.remove();
  }
}

export async function measureIdle(candidates, { rounds, windowMs }) {
  const samples = candidates.map(() => []);
  for (let round = 0; round < rounds; round++) {
    (await oneRound(candidates, windowMs)).forEach((sample, i) => samples[i].push(sample));
  }
  const out = { rounds, windowMs, byCandidate: {} };
  candidates.forEach((c, i) => {
    const of = (pick) => median(samples[i].map(pick));
    // The round with the median number of wake-ups says which threads woke.
    const typical = [...samples[i]].sort((a, b) => a.wakeups.total - b.wakeups.total)[samples[i].length >> 1];
    out.byCandidate[c.name] = {
      wakeups: of((s) => s.wakeups.total),
      wakeupsByThread: typical.wakeups.byThread,
      memory: {
        vmRss: of((s) => s.memory.vmRss),
        rssAnon: of((s) => s.memory.rssAnon),
        rssFile: of((s) => s.memory.rssFile),
        pss: of((s) => s.memory.pss),
        charge: of((s) => s.memory.charge),
      },
    };
  });
  return out;
}
