// The kernel's teardown of a Node PID 1: from its last instruction (a CLOCK_MONOTONIC stamp on
// stdout) until unshare sees the namespace gone, for a Node that leaves with _exit (as sexton
// does) or process.exit(), with and without giving back its file pages first (sexton does, 100
// ms after its spawn), with V8's pool at 1, and with sexton's two threads started.
//   node bench/probes/node-teardown.mjs [rounds]
import * as os from 'node:os';
import * as path from 'node:path';
import { killAll, msBetween, startPid1 } from '../lib/pid1.mjs';
import { ROOT } from '../lib/setup.mjs';
import { median, rotate } from '../lib/stats.mjs';

const rounds = Number(process.argv[2] ?? 21);
const ADDON = path.join(ROOT, 'build', 'Release', 'sexton.node');
const script = ({ release = false, leave = '_exit', threads = false }) => [
  `const a = require(${JSON.stringify(ADDON)});`,
  threads ? 'a.installSignalHandlers(); a.startNotifier(() => {}); a.startReaper(() => {});' : '',
  `setTimeout(() => { ${release ? 'a.releaseFilePages();' : ''} setTimeout(() => {`,
  '  require("fs").writeSync(1, `${process.hrtime.bigint()}\\n`);',
  `  ${leave === '_exit' ? 'a.exit(0)' : 'process.exit(0)'}; }, 50); }, 150);`,
].join(' ');
const cases = {
  'node, _exit': [process.execPath, '-e', script({})],
  'node, process.exit()': [process.execPath, '-e', script({ leave: 'process.exit' })],
  'node, file pages given back, _exit': [process.execPath, '-e', script({ release: true })],
  'node --v8-pool-size=1, _exit': [process.execPath, '--v8-pool-size=1', '-e', script({})],
  "node with sexton's threads, pages given back, _exit": [process.execPath, '-e', script({ release: true, threads: true })],
};
const ms = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
try {
  for (let round = 0; round < rounds; round++) {
    for (const name of rotate(Object.keys(cases), round)) {
      const run = await startPid1(cases[name], { lines: true });
      const stamp = await run.nextLine(5000);
      const exit = await run.exited;
      ms[name].push(msBetween(BigInt(stamp), exit.at));
    }
  }
} finally {
  killAll();
}
console.log(`last instruction → namespace gone (median of ${rounds}):`);
for (const [name, values] of Object.entries(ms)) console.log(`  ${median(values).toFixed(2).padStart(6)} ms  ${name}`);
console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
