// How long the kernel takes to tear a process down, from its last instruction until its parent
// sees it gone: Node (killing itself with SIGKILL, which like sexton's _exit skips every
// user-space cleanup) against small C programs with 0 and 40 MiB of touched memory.
//   node bench/probes/teardown.mjs [runs]
// This is the floor under any Node init's "TERM → exit", whatever the init does.
import { spawn } from 'node:child_process';
import { PID1_ENV, now } from '../lib/pid1.mjs';
import { compileBench } from '../lib/setup.mjs';
import { median } from '../lib/stats.mjs';

const runs = Number(process.argv[2] ?? 15);

/** Runs argv, which prints a CLOCK_MONOTONIC stamp (ns) as its last act; ms from stamp to exit. */
function stampToExit(argv) {
  return new Promise((resolve, reject) => {
    const proc = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'inherit'], env: PID1_ENV });
    let out = '';
    proc.stdout.on('data', (chunk) => (out += chunk));
    proc.on('error', reject);
    proc.on('exit', () => {
      const gone = now();
      resolve(Number(gone - BigInt(out.trim())) / 1e6);
    });
  });
}

const child = compileBench('child');
const NODE_LAST_ACT = 'setTimeout(() => { require("fs").writeSync(1, `${process.hrtime.bigint()}\\n`); process.kill(process.pid, "SIGKILL"); }, 100)';
const cases = {
  'C, nothing touched': [child.binary, 'stamp-exit', '0'],
  'C, 40 MiB touched': [child.binary, 'stamp-exit', '40'],
  'node (SIGKILL)': [process.execPath, '-e', NODE_LAST_ACT],
};
try {
  const ms = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const [name, argv] of Object.entries(cases)) ms[name].push(await stampToExit(argv));
  }
  console.log(`last instruction → parent sees the exit (median of ${runs}):`);
  for (const [name, values] of Object.entries(ms)) console.log(`  ${median(values).toFixed(2).padStart(6)} ms  ${name}`);
} finally {
  child.remove();
}
