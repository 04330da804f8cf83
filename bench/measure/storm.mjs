// Orphan storm: the harness's storm workload (a Node app whose shells make N orphans at once)
// runs under each init, while the bench counts the zombies waiting for PID 1 (its children in
// state Z) every millisecond or so. The harness samples the whole of /proc every 50 ms, too
// coarse for a peak that lasts a few ms, so the bench samples PID 1's children itself. (How fast
// a burst drains is bench/measure/burst.mjs: here the storm is over before "storm-done".)
import { zombieChildren } from '../lib/procfs.mjs';
import { msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { median, rotate } from '../lib/stats.mjs';
import { WORKLOAD } from '../lib/setup.mjs';

/** How long to keep watching after the workload says the storm is done (longer drains: ∞). */
const WATCH_AFTER_MS = 1000;

async function oneStorm(candidate, size) {
  const run = await startPid1(candidate.argv([process.execPath, WORKLOAD, 'storm', String(size)]), { lines: true });
  try {
    let doneAt;
    const lineLoop = (async () => {
      for (;;) {
        const line = await run.nextLine(30_000);
        if (line === null) return;
        if (line.includes('"storm-done"')) return void (doneAt = now());
      }
    })();
    const samples = [];  // [CLOCK_MONOTONIC ns, zombies]
    const started = now();
    while (doneAt === undefined || msBetween(doneAt, now()) < WATCH_AFTER_MS) {
      if (msBetween(started, now()) > 30_000) throw new Error(`the storm under ${candidate.name} did not finish in 30 s`);
      samples.push([now(), zombieChildren(run.pid1)]);
      await sleep(1);
    }
    await lineLoop;
    const at100 = samples.find(([at]) => at >= doneAt && msBetween(doneAt, at) >= 100);
    return {
      peak: Math.max(...samples.map(([, zombies]) => zombies)),
      after100: at100 ? at100[1] : NaN,
    };
  } finally {
    await run.kill();
  }
}

export async function measureStorm(candidates, { rounds, size }) {
  const results = new Map(candidates.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of rotate(candidates, round)) results.get(c.name).push(await oneStorm(c, size));
  }
  const out = { rounds, size, byCandidate: {} };
  for (const [name, runs] of results) {
    out.byCandidate[name] = {
      peak: median(runs.map((r) => r.peak)),
      after100: median(runs.map((r) => r.after100)),
      worstAfter100: Math.max(...runs.map((r) => r.after100)),
    };
  }
  return out;
}
