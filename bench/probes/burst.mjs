// Where a reaper's time goes: the bench's burst drain (bench/measure/burst.mjs) and storm peak
// (bench/measure/storm.mjs) for a few inits, plus the CPU time each thread of PID 1 spent over
// one 2000-orphan storm (schedstat; for sexton the reaper thread is the one that counts).
//   [SEXTON_BEFORE=dist/sexton.js] node bench/probes/burst.mjs [rounds] [inits,...]
import * as os from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import { measureBurst } from '../measure/burst.mjs';
import { measureStorm } from '../measure/storm.mjs';
import { killAll, msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { candidates, compileBench, WORKLOAD } from '../lib/setup.mjs';
import { median, rotate } from '../lib/stats.mjs';

const rounds = Number(process.argv[2] ?? 5);
const wanted = new Set((process.argv[3] ?? 'sexton,tini,dumb-init,catatonit').split(','));
const before = process.env.SEXTON_BEFORE
  ? [{ name: 'sexton before', argv: (command) => [process.execPath, process.env.SEXTON_BEFORE, '--', ...command] }]
  : [];
const inits = [...candidates(), ...before].filter((c) => wanted.has(c.name) || c.name === 'sexton before');
const child = compileBench('child');
process.on('exit', () => {
  killAll();
  child.remove();
});
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

/** ms on CPU of each thread of PID 1 after a storm of `size` orphans (its largest first). */
async function stormCpu(init, size) {
  const run = await startPid1(init.argv([process.execPath, WORKLOAD, 'storm', String(size)]), { lines: true });
  try {
    const started = now();
    for (;;) {
      const line = await run.nextLine(30_000);
      if (line === null) throw new Error(`no storm-done from ${init.name}`);
      if (line.includes('"storm-done"')) break;
    }
    await sleep(300);
    const ms = readdirSync(`/proc/${run.pid1}/task`).map((tid) => Number(readFileSync(`/proc/${run.pid1}/task/${tid}/schedstat`, 'utf8').split(' ')[0]) / 1e6);
    if (msBetween(started, now()) > 30_000) throw new Error('storm too slow');
    return ms.sort((a, b) => b - a);
  } finally {
    await run.kill();
  }
}

console.log(`load average before: ${load()}`);
const burst = await measureBurst(inits, child.binary, { rounds, size: 2000 });
const storm = await measureStorm(inits, { rounds, size: 2000 });
const cpu = new Map(inits.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  for (const c of rotate(inits, round)) cpu.get(c.name).push(await stormCpu(c, 2000));
}
console.log(`load average after: ${load()}`);
const ref = (key) => burst.byCandidate.tini?.[key];
const ratio = (v, r) => (r ? ` (${(v / r).toFixed(2)}×)` : '');
for (const c of inits) {
  const b = burst.byCandidate[c.name];
  const s = storm.byCandidate[c.name];
  const threads = cpu.get(c.name);
  // For sexton: the main thread's CPU includes its start-up; the reaper's is all reaping.
  const perThread = threads[0].map((_, i) => median(threads.map((t) => t[i] ?? 0)).toFixed(1)).filter((v) => v !== '0.0');
  console.log(`${c.name}`);
  console.log(`  burst drain ${b.drainMs.toFixed(1)} ms${ratio(b.drainMs, ref('drainMs'))} [${b.drainRounds.map((v) => v.toFixed(1)).join(' ')}]`);
  console.log(`  kill → reaped ${b.killToReapedMs.toFixed(1)} ms${ratio(b.killToReapedMs, ref('killToReapedMs'))} [${b.killToReapedRounds.map((v) => v.toFixed(1)).join(' ')}]`);
  console.log(`  storm peak ${s.peak}${ratio(s.peak, storm.byCandidate.tini?.peak)}; CPU per thread over a storm (ms, median): ${perThread.join(' ')}`);
}
