// Fault: a storm of orphans under tini's -w (a line for each orphan reaped). The reaper reaps
// far faster than JS writes lines, and each report waiting for JS is memory: so at most
// kOrphanReportsQueued (native/reaper.h) wait, and the next report JS takes carries the count of
// those that got none. Every orphan is still counted, in a line of its own or in that count.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { compileFixtures, CompiledFixtures } from '../support/faults';
import { requireBuilt, startPid1 } from '../support/pid1';
import { Links } from '../support/personalities';

const ORPHANS = 5000;
let fixtures: CompiledFixtures;

beforeAll(() => {
  requireBuilt();
  fixtures = compileFixtures(['burst']);
});
afterAll(() => fixtures?.remove());

it(`tini -w as PID 1, ${ORPHANS} orphans dying at once: a line for some, the count of the rest, none lost`, async () => {
  const links = new Links();
  // stderr to a file: a pipe the test reads too slowly would make the (never blocking) log
  // drop lines, which is another fault (test/faults/stderr.test.ts).
  const log = path.join(fixtures.dir, 'stderr');
  try {
    const argv = ['/bin/sh', '-c', 'exec "$@" 2>"$0"', log, links.path('tini'), '-w', '--', fixtures.path('burst'), String(ORPHANS)];
    const done = await (await startPid1(argv, { raw: true, timeoutMs: 50_000 })).done();
    const stderr = readFileSync(log, 'utf8');
    expect(done.stdout, stderr.slice(-2000)).toContain(`killed ${ORPHANS}`);
    expect(done.exitCode).toBe(0);
    const lines = stderr.match(/Reaped zombie process with pid=\d+/g) ?? [];
    const unreported = [...stderr.matchAll(/(\d+) more zombie processes were reaped without a line each/g)].map((m) => Number(m[1]));
    // All 5000 reach the init as zombies at once (test/fixtures/faults-burst.c), so the reaper
    // gets ahead by more than the queue holds: with 6 busy loops beside it, 2,685 lines and the
    // rest in count lines.
    expect(unreported.length, 'no count line: the queue bound never came into play').toBeGreaterThan(0);
    expect(lines.length + unreported.reduce((a, b) => a + b, 0)).toBe(ORPHANS);
  } finally {
    links.remove();
  }
});
