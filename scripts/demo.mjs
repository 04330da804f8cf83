// The README's main job: the zombie problem and its fix, on this machine, with no container engine.
// A Node app that orphans processes runs as PID 1 of a fresh PID namespace, first with no init,
// then under sexton; zombies are counted live from outside through /proc.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { runWorkload, formatReport } = require('../dist/harness.js');

const ORPHANS = 500;

let lastPrinted = -Infinity;
function live(sample) {
  const bar = '#'.repeat(Math.min(50, Math.ceil(sample.zombies / 10)));
  const line = `  ${(sample.atMs / 1000).toFixed(1).padStart(4)} s  zombies ${String(sample.zombies).padStart(4)} ${bar.padEnd(50)}`;
  // On a terminal the count updates in place; in a log, one line every half second.
  if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
  else if (sample.atMs - lastPrinted >= 500) {
    lastPrinted = sample.atMs;
    process.stdout.write(`${line.trimEnd()}\n`);
  }
}

async function act(title, init) {
  console.log(`\n== ${title}`);
  lastPrinted = -Infinity;
  const report = await runWorkload('orphans', { init, size: ORPHANS, onSample: live });
  if (process.stdout.isTTY) process.stdout.write('\n');
  console.log(formatReport(report));
  return report;
}

console.log(`sexton demo: a Node app (PID 1 of a new PID namespace) makes ${ORPHANS} orphans that exit, then is stopped with SIGTERM.`);
const bare = await act('1. no init: the app is PID 1 and never reaps what it did not spawn', 'none');
const fixed = await act('2. under sexton: ENTRYPOINT ["sexton", "--"]', 'sexton');

console.log('== verdict');
console.log(`  no init: ${bare.zombiesLeftAtExit} zombies left, ${bare.timedOut ? 'SIGTERM ignored, had to be SIGKILLed' : `exit ${bare.exitCode}`}`);
console.log(`  sexton:  ${fixed.zombiesLeftAtExit} zombies left, peak ${fixed.peakZombies}, exited ${fixed.exitCode} on SIGTERM in ${(fixed.durationMs / 1000).toFixed(1)} s`);
const ok = bare.zombiesLeftAtExit > 0 && fixed.zombiesLeftAtExit === 0 && !fixed.timedOut;
process.exitCode = ok ? 0 : 1;
