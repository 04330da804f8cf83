// The wrapper matrix, sexton's column: the app (test/fixtures/wrapper-app) started as CMD through
// npm, pnpm, yarn 1, yarn 4, node --watch, tsx watch, nodemon, a shell that does not exec, and
// as itself, with sexton as a real PID 1 and its defaults. TERM to PID 1, as a runtime stops a container: every
// start lets the app finish its second of graceful shutdown (its marker) and sexton exits well
// within the grace period having killed nothing, so nothing was left. The one exception is
// nodemon with an app that handles only TERM: nodemon sends its app SIGINT, which no init can undo. The other inits' columns
// are measured by `npm run bench:wrappers` (docs/wrappers.md).
import { beforeAll, expect, test } from 'vitest';
import { requireBuilt } from '../support/pid1';
import { inBatches, NODEMON_TERM_ONLY, runCase, SEXTON_INIT, WRAPPER_CASES } from '../support/wrapper-matrix';

/** sexton's default grace period, and the runtime's SIGKILL after it. */
const GRACE_SECONDS = 10;

beforeAll(() => requireBuilt());

test('every wrapper under sexton: the app finishes its graceful shutdown, sexton exits within the grace period, nothing is killed', async () => {
  // Three at a time: the wrappers' own start-up is the slow part, and the machine has 2 cores.
  const results = await inBatches(WRAPPER_CASES.map((c) => () => runCase(c, SEXTON_INIT, { graceSeconds: GRACE_SECONDS })), 3);
  for (const r of results) {
    console.log(`${r.wrapper}: marker ${r.marker}, exit ${r.exitCode} ${r.stopMs} ms after TERM`);
  }
  for (const r of results) {
    const context = `${r.wrapper}\n${r.stderr}`;
    expect(r.started, context).toBe(true);
    if (r.wrapper === NODEMON_TERM_ONLY) {
      // No init can help: nodemon itself SIGINTs its app on TERM, and a TERM-only Node app dies of
      // it at once. sexton still exits promptly, with nothing left (docs/wrappers.md).
      expect(r.marker, context).toBe(false);
      expect(r.stderr, context).not.toMatch(/grace period over|killing pid/);
      continue;
    }
    expect(r.marker, context).toBe(true);
    expect(r.killedAtGrace, context).toBe(false);
    expect(r.stopMs, context).toBeLessThan(GRACE_SECONDS * 1000);
    // sexton SIGKILLs nothing: every process ended on its own, none was left to the grace period.
    expect(r.stderr, context).not.toMatch(/grace period over|killing pid/);
    expect(r.stderr, context).toMatch(/sexton: exiting with \d+/);
  }
}, 180_000);
