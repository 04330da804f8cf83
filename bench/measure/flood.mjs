// CPU under a signal flood: SIGUSR1 at `rate` a second for `seconds`, from outside the namespace
// to PID 1, which forwards each to a child that ignores it. What counts is PID 1's own CPU time
// (every thread's, from /proc/PID/task/*/schedstat, in ns), not the child's or the sender's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { sleep, startPid1 } from '../lib/pid1.mjs';
import { compileFaultFixture } from '../lib/setup.mjs';
import { median, rotate } from '../lib/stats.mjs';

/** Past sexton's start: its exporters start 100 ms after the child, its pages go back then. */
const SETTLE_MS = 1000;
const IGNORING_CHILD = ['sh', '-c', 'trap "" USR1; echo ready; exec sleep 600'];

/** CPU time of every thread of pid so far, in seconds. */
function cpuSeconds(pid) {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // a thread that ended meanwhile
    }
  }
  return ns / 1e9;
}

async function oneFlood(candidate, flood, { seconds, rate }) {
  const run = await startPid1(candidate.argv(IGNORING_CHILD), { lines: true });
  try {
    await run.expectLine('ready');
    await sleep(SETTLE_MS);
    const before = cpuSeconds(run.pid1);
    const out = execFileSync(flood, [String(run.pid1), String(os.constants.signals.SIGUSR1), String(rate), String(seconds)], { encoding: 'utf8' });
    const cpu = cpuSeconds(run.pid1) - before;
    return { cpu, sent: out.trim() };
  } finally {
    await run.kill();
  }
}

/** Rounds of one flood per candidate, candidates rotated each round; median CPU seconds. */
export async function measureFlood(candidates, { rounds, seconds, rate }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sexton-bench-flood-'));
  try {
    const flood = compileFaultFixture(dir, 'flood');
    const cpu = new Map(candidates.map((c) => [c.name, []]));
    for (let round = 0; round < rounds; round++) {
      for (const c of rotate(candidates, round)) cpu.get(c.name).push((await oneFlood(c, flood, { seconds, rate })).cpu);
    }
    return { seconds, rate, rounds, cpuSeconds: Object.fromEntries([...cpu].map(([name, values]) => [name, median(values)])) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
