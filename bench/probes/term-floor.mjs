// TERM → exit side by side, rounds interleaved: tini, sexton, and Node's floors: a bare `node -e`
// PID 1 that forwards TERM to the child and leaves with process.exit() or with _exit (the
// addon's exit, as sexton does). The child dies of the TERM; the TERM is sent `settle` ms after
// its "ready", past sexton's exporters and page release (100 ms after the spawn).
//   node bench/probes/term-floor.mjs [rounds] [settle ms]
// Another sexton to compare: SEXTON_JS=/path/to/dist/sexton.js adds it as "sexton (other)".
import * as os from 'node:os';
import * as path from 'node:path';
import { killAll, msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { compileBench, ROOT, SEXTON } from '../lib/setup.mjs';
import { median, rotate } from '../lib/stats.mjs';

const rounds = Number(process.argv[2] ?? 21);
const settleMs = Number(process.argv[3] ?? 300);
const ADDON = path.join(ROOT, 'build', 'Release', 'sexton.node');
const floor = (leave) => [
  'const c = require("child_process").spawn(process.argv[1], process.argv.slice(2), { stdio: "inherit" });',
  'process.on("SIGTERM", () => c.kill("SIGTERM"));',
  `c.on("exit", (code, signal) => { const s = signal ? 128 + require("os").constants.signals[signal] : code; ${leave}; });`,
].join(' ');
const candidates = [
  { name: 'tini', argv: (c) => ['/usr/bin/tini', '--', ...c] },
  { name: 'sexton', argv: (c) => [process.execPath, SEXTON, '--', ...c] },
  ...(process.env.SEXTON_JS ? [{ name: 'sexton (other)', argv: (c) => [process.execPath, process.env.SEXTON_JS, '--', ...c] }] : []),
  { name: 'node -e, process.exit()', argv: (c) => [process.execPath, '-e', floor('process.exit(s)'), ...c] },
  { name: 'node -e, _exit', argv: (c) => [process.execPath, '-e', floor(`require(${JSON.stringify(ADDON)}).exit(s)`), ...c] },
];
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

const child = compileBench('child');
const ms = new Map(candidates.map((c) => [c.name, []]));
try {
  console.log(`load average ${load()}`);
  for (let round = 0; round < rounds; round++) {
    for (const c of rotate(candidates, round)) {
      const run = await startPid1(c.argv([child.binary, 'signals']), { lines: true });
      await run.expectLine('ready');
      await sleep(settleMs);
      const sent = now();
      run.signal('SIGTERM');
      const exit = await run.exited;
      if (exit.code !== 143) throw new Error(`${c.name} exited ${exit.code ?? exit.signal}: ${run.stderr()}`);
      ms.get(c.name).push(msBetween(sent, exit.at));
    }
  }
  console.log(`TERM → namespace gone (median of ${rounds}, p10–p90):`);
  for (const [name, values] of ms) {
    const sorted = [...values].sort((a, b) => a - b);
    const at = (q) => sorted[Math.floor(q * (sorted.length - 1))].toFixed(2);
    console.log(`  ${median(values).toFixed(2).padStart(6)} ms  (${at(0.1)}–${at(0.9)})  ${name}`);
  }
  console.log(`load average ${load()}`);
} finally {
  child.remove();
  killAll();
}
