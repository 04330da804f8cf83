// A stop signal whose notice to JS is lost still stops the tree. The signal handler writes each
// notice into a pipe; when JS is blocked and a flood fills that pipe, the notice is dropped and
// only a counter remains (native/notifier.cc). Once JS runs again it must catch up on the stop
// signal from the counters: here the child ignores TERM, so only the grace period, which starts
// with that stop signal, can end it.
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compileFixtures, CompiledFixtures, readStats, scratchDir } from '../support/faults';
import { fixture, requireBuilt, startPid1 } from '../support/pid1';
import { track } from '../support/processes';

/** Notices the pipe holds (64 KiB of 20-byte notices) plus the queue to JS (64) and one in hand. */
const NOTICES_HELD = Math.floor(65536 / 20) + 64 + 1;
const BLOCK_MS = 4000;
/**
 * When TERM goes out, at the latest (after the flood): JS then resumes 1.5 s or less after it.
 * The native stop deadline (src/init/stop-deadline.ts) counts from TERM's arrival and leaves JS
 * 3 s past the grace period; a JS thread blocked longer than that hands the stop to the deadline
 * (test/faults/stop-deadline.test.ts). Here JS must catch up and act itself.
 */
const TERM_AFTER_MS = 2500;
/** A real-time signal: the kernel queues each one, where a standard signal pending coalesces. */
const FLOOD_SIGNAL = 40;
const FLOOD = 10000;

let fixtures: CompiledFixtures;
let scratch: ReturnType<typeof scratchDir>;
beforeAll(() => {
  requireBuilt();
  fixtures = compileFixtures(['flood']);
  scratch = scratchDir();
});
afterAll(() => {
  fixtures?.remove();
  scratch?.remove();
});

it('TERM sent after a flood filled the notice pipe while JS was blocked: the grace period still kills the stubborn child', async () => {
  const statsFile = path.join(scratch.dir, 'stats.json');
  // -vv: every forwarded signal is a notice for JS to log.
  const child = `trap "" TERM ${FLOOD_SIGNAL}; echo ready; exec sleep 600`;
  const run = await startPid1(['-vv', '-t', '1', '--stats-file', statsFile, '--', 'sh', '-c', child], {
    nodeArgs: ['--require', fixture('signals-block-js.cjs')],
    env: { BLOCK_AFTER_MS: '300', BLOCK_MS: String(BLOCK_MS) },
    timeoutMs: 20_000,
  });
  await run.waitFor('ready');
  await run.waitFor('block: start', 'stderr');
  const blockedAt = Date.now();

  const flood = spawn(fixtures.path('flood'), [String(run.pid1), String(FLOOD_SIGNAL), String(FLOOD), '1'], { stdio: 'ignore' });
  track(flood.pid);
  expect(await new Promise((resolve) => flood.on('exit', resolve))).toBe(0);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, blockedAt + TERM_AFTER_MS - Date.now())));
  run.signal('SIGTERM');
  // Everything above happened while JS could not read a single notice.
  expect(run.stderr(), 'JS was still blocked when TERM was sent').not.toContain('block: end');
  expect(Date.now() - blockedAt).toBeLessThan(BLOCK_MS - 500);

  const result = await run.done();
  expect(result.exitCode, result.stderr).toBe(137);  // the stubborn child, SIGKILLed at the grace period
  const stats = readStats(statsFile);
  // More notices than the pipe and the queue could hold: some were lost, and TERM's with them.
  expect(stats?.signals.received['RTMIN+6'], JSON.stringify(stats?.signals.received)).toBeGreaterThan(NOTICES_HELD);
  expect(stats?.signals.received.TERM).toBe(1);
  expect(result.stderr).toContain('grace period over');
  expect(result.stderr).not.toContain('stop deadline');
});
