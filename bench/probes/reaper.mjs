// Why sexton's storm peak is higher than tini's: the same storm as the bench, under tini,
// sexton, and a minimal C init with sexton's reaping scheme, with and without reading each
// zombie's /proc/PID/comm before reaping it, or only the first zombie of each wake-up.
//   node bench/probes/reaper.mjs [rounds]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { zombieChildren } from '../lib/procfs.mjs';
import { candidates, WORKLOAD } from '../lib/setup.mjs';
import { median, rotate } from '../lib/stats.mjs';

const rounds = Number(process.argv[2] ?? 5);
const dir = mkdtempSync(path.join(os.tmpdir(), 'sexton-probe-'));
const reaper = path.join(dir, 'reaper');
execFileSync('cc', ['-O2', '-Wall', '-pthread', '-o', reaper, path.join(path.dirname(fileURLToPath(import.meta.url)), 'reaper.c')]);

const byName = Object.fromEntries(candidates().map((c) => [c.name, c]));
const inits = [
  { name: 'tini', argv: byName.tini.argv },
  { name: 'sexton', argv: byName.sexton.argv },
  { name: 'C reaper thread', argv: (command) => [reaper, '--', ...command] },
  { name: 'C reaper thread + /proc/PID/comm', argv: (command) => [reaper, '--comm', '--', ...command] },
  { name: 'C reaper thread + comm of the first zombie per wake-up', argv: (command) => [reaper, '--comm-first', '--', ...command] },
];

async function peakZombies(init) {
  const run = await startPid1(init.argv([process.execPath, WORKLOAD, 'storm', '2000']), { lines: true });
  try {
    let doneAt;
    run.nextLine(30_000).then(() => (doneAt = now()));
    let peak = 0;
    while (doneAt === undefined || msBetween(doneAt, now()) < 200) {
      peak = Math.max(peak, zombieChildren(run.pid1));
      await sleep(1);
    }
    return peak;
  } finally {
    await run.kill();
  }
}

try {
  const peaks = new Map(inits.map((init) => [init.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const init of rotate(inits, round)) peaks.get(init.name).push(await peakZombies(init));
  }
  console.log(`peak zombies of a 2000-orphan storm (median of ${rounds}; all rounds):`);
  for (const [name, values] of peaks) console.log(`  ${String(median(values)).padStart(5)}  ${name}  [${values.join(' ')}]`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
