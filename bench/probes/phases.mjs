// Where sexton's startup and TERM → exit time goes, step by step (medians over runs):
//   node bench/probes/phases.mjs [runs]
// sexton runs as PID 1 with phase-marks.cjs preloaded; the bench's own clock (CLOCK_MONOTONIC,
// shared with the init) adds "sent" and "gone" (unshare exited). The preload's wrapping costs
// a little, so read the steps, not the total.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PID1_ENV, now, sleep, startPid1, UNSHARE } from '../lib/pid1.mjs';
import { compileBench, SEXTON } from '../lib/setup.mjs';
import { median } from '../lib/stats.mjs';

const MARKS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'phase-marks.cjs');
const runs = Number(process.argv[2] ?? 15);
/** After the child's "ready", past sexton's exporters and page release (100 ms after the spawn). */
const SETTLE_MS = 300;
const sextonArgv = (command) => [process.execPath, '--require', MARKS, SEXTON, '--', ...command];

function parseMarks(stderr) {
  return stderr.split('\n').flatMap((line) => {
    const match = /^mark ([\d.]+) (.*)$/.exec(line);
    return match ? [[Number(match[1]), match[2]]] : [];
  });
}

/** Adds each step's duration (from the previous mark) to `steps`, keyed by the step's name. */
function collect(steps, marks) {
  for (let i = 1; i < marks.length; i++) {
    const key = marks[i][1];
    (steps[key] ??= []).push(marks[i][0] - marks[i - 1][0]);
  }
}

function print(title, steps) {
  console.log(`\n${title} (median of ${runs} runs, ms since the previous step)`);
  for (const [what, ms] of Object.entries(steps)) console.log(`  +${median(ms).toFixed(2).padStart(6)}  ${what}`);
}

const startup = {};
for (let i = 0; i < runs; i++) {
  const started = Number(now()) / 1e6;
  const result = spawnSync(UNSHARE[0], [...UNSHARE.slice(1), ...sextonArgv(['/bin/true'])], { env: PID1_ENV, encoding: 'utf8' });
  collect(startup, [[started, 'unshare started'], ...parseMarks(result.stderr), [Number(now()) / 1e6, 'gone']]);
}
print('sexton -- /bin/true as PID 1', startup);

const child = compileBench('child');
const term = {};
try {
  for (let i = 0; i < runs; i++) {
    const run = await startPid1(sextonArgv([child.binary, 'signals']), { lines: true });
    await run.expectLine('ready');
    await sleep(SETTLE_MS);
    const sent = now();
    run.signal('SIGTERM');
    const exit = await run.exited;
    const marks = parseMarks(run.stderr()).filter(([at]) => at >= Number(sent) / 1e6);
    collect(term, [[Number(sent) / 1e6, 'sent'], ...marks, [Number(exit.at) / 1e6, 'gone']]);
  }
} finally {
  child.remove();
}
print('SIGTERM → exit, cooperative child', term);
