// Shutdown: SIGTERM to PID 1 until the namespace is gone (unshare exits when PID 1 does).
// A cooperative child dies of the forwarded SIGTERM; a stubborn one ignores it, and only an
// init with a grace period (sexton --grace 1) ends it. The peers have none: they are watched
// for peerWaitMs and then killed, all side by side since they only wait. Node's floor is a bare
// `node -e` PID 1 that forwards TERM to its child and calls process.exit() when it is gone:
// the kernel's teardown of a Node process alone is 2-3 ms (bench/probes/teardown.mjs).
import { msBetween, now, sleep, startPid1 } from '../lib/pid1.mjs';
import { median, rotate } from '../lib/stats.mjs';

export const GRACE_S = 1;
/**
 * Pause after the child's "ready": it can come before the init has finished starting. sexton
 * starts its exporters and gives back its file pages 100 ms after the spawn (4-6 ms of work): a
 * TERM sent at 100 ms met that work and measured it, not the stop.
 */
const SETTLE_MS = 300;
export const NODE_TERM_FLOOR = 'node -e (forward TERM, process.exit)';
const NODE_FLOOR_SCRIPT = [
  'const c = require("child_process").spawn(process.argv[1], process.argv.slice(2), { stdio: "inherit" });',
  'process.on("SIGTERM", () => c.kill("SIGTERM"));',
  'c.on("exit", (code, signal) => process.exit(signal ? 128 + require("os").constants.signals[signal] : code));',
].join(' ');
export const nodeFloor = { name: NODE_TERM_FLOOR, argv: (command) => [process.execPath, '-e', NODE_FLOOR_SCRIPT, ...command] };
/** A shutdown that takes longer than this is a failure of the bench, not a slow init. */
const EXIT_TIMEOUT_MS = 10_000;

async function timeTermToExit(argv) {
  const run = await startPid1(argv, { lines: true });
  try {
    await run.expectLine('ready');
    await sleep(SETTLE_MS);
    const sent = now();
    run.signal('SIGTERM');
    const exit = await Promise.race([run.exited, sleep(EXIT_TIMEOUT_MS).then(() => null)]);
    if (exit === null) throw new Error(`${run.describe()} did not exit ${EXIT_TIMEOUT_MS} ms after SIGTERM`);
    return msBetween(sent, exit.at);
  } finally {
    await run.kill();
  }
}

async function peersIgnoringTerm(peers, child, waitMs) {
  const runs = [];
  try {
    for (const c of peers) runs.push(await startPid1(c.argv([child, 'stubborn']), { lines: true }));
    await Promise.all(runs.map((run) => run.expectLine('ready')));
    await sleep(SETTLE_MS);
    const sent = now();
    for (const run of runs) run.signal('SIGTERM');
    const ended = runs.map(() => null);
    runs.forEach((run, i) => run.exited.then((exit) => (ended[i] = msBetween(sent, exit.at))));
    await sleep(waitMs);
    return Object.fromEntries(peers.map((c, i) => [c.name, { ms: ended[i], killedAtMs: ended[i] === null ? waitMs : undefined }]));
  } finally {
    await Promise.all(runs.map((run) => run.kill()));
  }
}

export async function measureShutdown(candidates, child, { rounds, stubbornRounds, peerWaitMs }) {
  const timed = [...candidates, nodeFloor];
  const term = new Map(timed.map((c) => [c.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const c of rotate(timed, round)) term.get(c.name).push(await timeTermToExit(c.argv([child, 'signals'])));
  }
  const floorMs = median(term.get(NODE_TERM_FLOOR));
  term.delete(NODE_TERM_FLOOR);
  const graceful = candidates.filter((c) => c.grace);
  const peers = candidates.filter((c) => !c.grace);
  const stubborn = {};
  for (const c of graceful) {
    const stubbornMs = [];
    for (let round = 0; round < stubbornRounds; round++) {
      stubbornMs.push(await timeTermToExit(c.argv([child, 'stubborn'], { grace: GRACE_S })));
    }
    stubborn[c.name] = { ms: median(stubbornMs), worstMs: Math.max(...stubbornMs), bestMs: Math.min(...stubbornMs) };
  }
  Object.assign(stubborn, await peersIgnoringTerm(peers, child, peerWaitMs));
  return {
    rounds,
    graceS: GRACE_S,
    floorMs,
    termMs: Object.fromEntries([...term].map(([name, ms]) => [name, median(ms)])),
    stubborn,
  };
}
