// The start-up window: a TERM sent to PID 1 d ms after it has exec'd its init, for
// sexton, a bare `node -e` that installs a TERM handler as its first statement, and tini. Until
// PID 1 has a handler the kernel drops the signal (a namespace's init gets no default action),
// so a lost TERM means the run goes on until it is SIGKILLed. For sexton the milestones are also
// timed from the same moment: its handlers in (RTMAX in SigCgt: sexton installs every handler
// in one loop, RTMAX last, and Node catches no RT signal) and its child spawned.
//
//   node bench/measure/startup-window.mjs [--rounds N]     prints markdown tables
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { childrenOf, killAll, msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { median, percentile } from '../lib/stats.mjs';
import { requireBuilt, SEXTON } from '../lib/setup.mjs';

export const DELAYS_MS = [0, 5, 10, 20, 30, 40, 50, 75, 100];
const LOST_AFTER_MS = 2000;

/**
 * Each init with the mark that its TERM handling is in place, read from /proc/PID/status:
 * sexton's RTMAX handler (its loop installs RTMAX last), the baseline's WINCH handler (set
 * right after its TERM handler; Node catches TERM itself from its own start, so TERM is no
 * mark), tini's blocked TERM (it waits for signals with sigtimedwait).
 */
export const INITS = [
  { name: 'sexton', argv: [process.execPath, SEXTON, '--status-socket', 'none', '--', 'sleep', '30'], ready: (pid) => hasBit(pid, 'SigCgt', 64) },
  {
    name: 'node -e (handler first)',
    argv: [process.execPath, '-e', "process.on('SIGTERM', () => process.exit(143)); process.on('SIGWINCH', () => {}); setInterval(() => {}, 1e6)"],
    ready: (pid) => hasBit(pid, 'SigCgt', 28),
  },
  { name: 'tini', argv: ['/usr/bin/tini', '--', 'sleep', '30'], ready: (pid) => hasBit(pid, 'SigBlk', 15) },
];

function comm(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function hasBit(pid, field, signal) {
  try {
    const m = new RegExp(`^${field}:\\s*([0-9a-f]+)$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m !== null && ((BigInt(`0x${m[1]}`) >> BigInt(signal - 1)) & 1n) === 1n;
  } catch {
    return false;
  }
}

const cell = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this thread for ms without spinning: a spinning probe would take a core from PID 1. */
const pause = (ms) => Atomics.wait(cell, 0, 0, ms);

/** Polls (every 0.1 ms) until PID 1 is no longer unshare's forked copy: the moment it exec'd. */
function waitForExec(pid1) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const name = comm(pid1);
    if (name !== 'unshare') return now();
    if (Date.now() > deadline) throw new Error(`PID 1 (${pid1}) never exec'd`);
    pause(0.1);
  }
}

function pauseUntil(at) {
  const ms = Number(at - now()) / 1e6;
  if (ms > 0) pause(ms);
}

/** One TERM d ms after exec: true when PID 1 ended by it within LOST_AFTER_MS. */
async function termAfter(init, delayMs) {
  const run = await startPid1(init.argv);
  try {
    const execd = waitForExec(run.pid1);
    pauseUntil(execd + BigInt(Math.round(delayMs * 1e6)));
    run.signal('SIGTERM');
    const ended = await Promise.race([run.exited.then(() => true), sleep(LOST_AFTER_MS).then(() => false)]);
    return ended;
  } finally {
    await run.kill();
  }
}

/** ms from exec to the init's TERM handling, and to its first child (none for the baseline). */
async function milestones(init) {
  const run = await startPid1(init.argv);
  try {
    const execd = waitForExec(run.pid1);
    let handlers;
    let child;
    const deadline = Date.now() + 5000;
    while ((handlers === undefined || (child === undefined && init.name !== INITS[1].name)) && Date.now() < deadline) {
      if (handlers === undefined && init.ready(run.pid1)) handlers = msBetween(execd, now());
      if (child === undefined && childrenOf(run.pid1).length > 0) child = msBetween(execd, now());
      pause(0.1);
    }
    return { handlers, child };
  } finally {
    await run.kill();
  }
}

export async function measureStartupWindow({ rounds = 6, delays = DELAYS_MS } = {}) {
  const lost = Object.fromEntries(INITS.map((init) => [init.name, Object.fromEntries(delays.map((d) => [d, 0]))]));
  for (let round = 0; round < rounds; round++) {
    for (const delay of delays) {
      for (const init of INITS) if (!(await termAfter(init, delay))) lost[init.name][delay]++;
    }
  }
  const spread = (values) => ({ median: median(values), p10: percentile(values, 10), p90: percentile(values, 90) });
  const marks = {};
  for (const init of INITS) {
    const handlers = [];
    const child = [];
    for (let round = 0; round < Math.max(rounds, 10); round++) {
      const m = await milestones(init);
      if (m.handlers !== undefined) handlers.push(m.handlers);
      if (m.child !== undefined) child.push(m.child);
    }
    marks[init.name] = { handlersMs: spread(handlers), childMs: child.length ? spread(child) : undefined };
  }
  return { rounds, delays, lost, marks };
}

export function windowTable(result) {
  const head = `| TERM sent, ms after exec | ${INITS.map((i) => i.name).join(' | ')} |`;
  const rule = `|---|${INITS.map(() => '---').join('|')}|`;
  const rows = result.delays.map((d) => `| ${d} | ${INITS.map((i) => `${result.lost[i.name][d]}/${result.rounds} lost`).join(' | ')} |`);
  const f = (s) => (s ? `${s.median.toFixed(1)} ms (p10 ${s.p10.toFixed(1)}, p90 ${s.p90.toFixed(1)})` : '–');
  return [
    head, rule, ...rows, '',
    '| from exec | TERM handled | child spawned |',
    '|---|---|---|',
    ...INITS.map((i) => `| ${i.name} | ${f(result.marks[i.name].handlersMs)} | ${f(result.marks[i.name].childMs)} |`),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--rounds');
  const rounds = at > 0 ? Number(process.argv[at + 1]) : 6;
  requireBuilt();
  process.on('exit', killAll);
  measureStartupWindow({ rounds }).then(
    (result) => process.stdout.write(`${windowTable(result)}\n`),
    (error) => {
      process.stderr.write(`startup-window: ${error.stack ?? error}\n`);
      process.exit(2);
    },
  );
}
