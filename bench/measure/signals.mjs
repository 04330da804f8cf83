// Signal forwarding latency: the bench stamps CLOCK_MONOTONIC and sends SIGUSR1 to PID 1; the
// child's handler stamps the same clock when the forwarded signal arrives and prints it. One
// signal at a time (signals of one kind coalesce), with a short pause between them.
// Under the storm, the child runs a background process that makes orphans without pause, so
// the init forwards while it reaps.
import { lastPid, pidsBetween } from '../lib/procfs.mjs';
import { msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { median, percentile, rotate } from '../lib/stats.mjs';

/** A signal whose stamp has not come back after this long counts as lost. */
const LOST_AFTER_MS = 1000;
/**
 * Pause after the child's "ready" before the first signal: the child can print it before the
 * init has finished starting (sexton's spawn returns only after the exec), and the latency of a
 * signal that arrives during startup is not forwarding latency. Past sexton's start: its
 * exporters start 100 ms after the child and give back its pages, several ms of work on a CPU
 * that a signal's child then waits for (the first ~10 signals after 100 ms made the whole p99:
 * bench/RESULTS.md, Notes). Under the storm, the orphan maker also reaches full speed meanwhile.
 */
const SETTLE_MS = { signals: 1000, 'storm-signals': 1000 };

export async function oneBlock(candidate, child, mode, count) {
  const run = await startPid1(candidate.argv([child, mode]), { lines: true });
  try {
    await run.expectLine('ready');
    await sleep(SETTLE_MS[mode]);
    const latenciesUs = [];
    let lost = 0;
    const started = now();
    const firstPid = lastPid();
    for (let i = 0; i < count; i++) {
      const sent = now();
      run.signal('SIGUSR1');
      const line = await run.nextLine(LOST_AFTER_MS);
      if (line === null) lost++;
      else latenciesUs.push(Number(BigInt(line) - sent) / 1000);
      await sleep(1 + (i % 3));  // 1-3 ms apart, so that no rhythm locks in
    }
    const pidsPerSecond = pidsBetween(firstPid, lastPid()) / (msBetween(started, now()) / 1000);
    return { latenciesUs, lost, pidsPerSecond };
  } finally {
    await run.kill();
  }
}

/** Runs `blocks` blocks of signals per candidate and mode, candidates interleaved block by block. */
export async function measureSignals(candidates, child, { blocks, perBlock }) {
  const out = { signals: blocks * perBlock, idle: {}, storm: {}, stormForksPerSecond: {} };
  for (const [mode, key] of [['signals', 'idle'], ['storm-signals', 'storm']]) {
    const collected = new Map(candidates.map((c) => [c.name, { latenciesUs: [], lost: 0, rates: [] }]));
    for (let block = 0; block < blocks; block++) {
      for (const c of rotate(candidates, block)) {
        const result = await oneBlock(c, child, mode, perBlock);
        const into = collected.get(c.name);
        into.latenciesUs.push(...result.latenciesUs);
        into.lost += result.lost;
        into.rates.push(result.pidsPerSecond);
      }
    }
    for (const [name, { latenciesUs, lost, rates }] of collected) {
      out[key][name] = { medianUs: median(latenciesUs), p99Us: percentile(latenciesUs, 99), maxUs: Math.max(...latenciesUs), lost };
      if (key === 'storm') out.stormForksPerSecond[name] = median(rates);
    }
  }
  return out;
}
