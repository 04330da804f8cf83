// The example in docs/harness.md, verbatim but for the entrypoint: a complete vitest file to prove an image's entrypoint leaks no
// zombies. 'sexton/harness' resolves through package.json "exports" (here a self-reference to the
// built dist/harness.js, exactly what users get). Runs as root here; test/docs/ci-examples.test.ts runs it as nobody.
import { expect, test } from 'vitest';
import { assertNoZombieLeak, runAsPid1 } from 'sexton/harness';

// Your entrypoint: what follows `sexton --` in your Dockerfile.
const ENTRYPOINT = ['node', 'test/fixtures/harness-app.js'];
// A line it prints once it is up (a fixed delay fails on a busy CI runner, where start-up is slow).
const READY = 'ready';

test('the entrypoint leaks no zombies under sexton', async () => {
  // PID 1 of a fresh PID namespace is sexton, running the entrypoint; zombies are sampled
  // through /proc; 2 s after it is ready it gets SIGTERM, as from `docker stop`.
  const report = await runAsPid1(ENTRYPOINT, {
    init: 'sexton',
    onLine: (line, stop) => line.includes(READY) && stop(2000),
  });
  // Throws, naming each parent that held zombies, if any zombie was left or PID 1 did not exit.
  assertNoZombieLeak(report);
  expect(report.exitCode).toBe(0);
}, 60_000);
