// --drain-quiet behind a real load balancer: HAProxy in front of two backends, each an
// HTTP server under sexton as PID 1 in a network namespace of its own, under a bounded load; one
// backend is stopped while the balancer learns of it in one of the ways a cluster does.
import { beforeAll, describe, expect, test } from 'vitest';
import { requireHaproxy } from '../support/balancer';
import { Outcome, runScenario, Scenario } from '../support/drain-scenario';
import { requireBuilt } from '../support/pid1';

const REMOVAL_MS = 1500;
/** Longer than the pauses a load generator has on this shared machine (up to ~0.5 s seen). */
const QUIET_S = 1;
const QUIET = ['--drain-quiet', String(QUIET_S), '--drain-delay', '5'];
/** The app's own close, and this shared machine's noise: generous, an upper bound only. */
const CLOSE_MARGIN_MS = 3000;

beforeAll(() => {
  requireBuilt();
  requireHaproxy();
});

async function stop(s: Scenario): Promise<Outcome> {
  const outcome = await runScenario(s);
  // A pause of the load itself longer than the quiet window would look like quiet: say so.
  const quiet = s.sexton.indexOf('--drain-quiet');
  if (quiet >= 0) expect(outcome.maxGapMs, 'the load paused longer than the quiet window (a busy machine)').toBeLessThan(Number(s.sexton[quiet + 1]) * 1000);
  // The figures, for the reader of the test log (and the README's table).
  console.log(`${JSON.stringify(s.sexton)} ${s.model.kind}${s.pooled ? ' pooled' : ''}: ${outcome.failed}/${outcome.sent} failed ${JSON.stringify(outcome.failures)} (longest pause of the load ${outcome.maxGapMs} ms), stop ${outcome.stopMs} ms; ${outcome.log.match(/drain: forwarding.*/)?.[0] ?? ''}`);
  return outcome;
}

describe('with --drain-quiet: no request fails, and the stop ends soon after the removal', () => {
  test('(a) the balancer health-checks /readyz every 100 ms: removal follows readiness', async () => {
    const o = await stop({ sexton: [...QUIET, '--health', '0.0.0.0:9000'], model: { kind: 'readiness', healthPort: 9000 } });
    expect(o.failed).toBe(0);
    expect(o.sent).toBeGreaterThan(100);
    // The checks go on after the removal (HAProxy watches for recovery): sexton's own, not traffic.
    expect(o.stopMs).toBeGreaterThanOrEqual(QUIET_S * 1000);
    expect(o.stopMs).toBeLessThan(QUIET_S * 1000 + CLOSE_MARGIN_MS + 1000);
    expect(o.log).toMatch(/\(quiet for 1s\)/);
  }, 60_000);

  test('(b) removal 1.5 s after the stop signal, a new connection per request', async () => {
    const o = await stop({ sexton: QUIET, model: { kind: 'removal', afterMs: REMOVAL_MS } });
    expect(o.failed).toBe(0);
    expect(o.sent).toBeGreaterThan(100);
    expect(o.stopMs).toBeGreaterThanOrEqual(REMOVAL_MS);
    expect(o.stopMs).toBeLessThan(REMOVAL_MS + QUIET_S * 1000 + CLOSE_MARGIN_MS);
    expect(o.log).toMatch(/drain: forwarding the stop signal, waited \d+\.\d\ds \(quiet for 1s\); last traffic \d+\.\d\ds after the stop signal/);
    expect(o.log).not.toMatch(/after the stop signal was forwarded/);
  }, 60_000);

  test('(b) again with the balancer pooling its server connections (http-reuse always)', async () => {
    const o = await stop({ sexton: QUIET, model: { kind: 'removal', afterMs: REMOVAL_MS }, pooled: true });
    expect(o.failed).toBe(0);
    // Requests on pooled connections open no new one: only their data says traffic goes on.
    expect(o.stopMs).toBeGreaterThanOrEqual(REMOVAL_MS);
    expect(o.stopMs).toBeLessThan(REMOVAL_MS + QUIET_S * 1000 + CLOSE_MARGIN_MS);
    expect(o.log).toMatch(/\(quiet for 1s\)/);
  }, 60_000);
});

describe('the counter-cases: open-loop drains fail requests or waste seconds', () => {
  test('no drain: requests fail until the removal', async () => {
    const o = await stop({ sexton: [], model: { kind: 'removal', afterMs: REMOVAL_MS } });
    expect(o.failed).toBeGreaterThan(0);
    expect(o.stopMs).toBeLessThan(REMOVAL_MS);
  }, 60_000);

  test('a fixed drain shorter than the removal: requests fail', async () => {
    const o = await stop({ sexton: ['--drain-delay', '0.5'], model: { kind: 'removal', afterMs: REMOVAL_MS } });
    expect(o.failed).toBeGreaterThan(0);
  }, 60_000);

  test('a fixed drain longer than the removal: none fail, the stop waits the whole delay', async () => {
    const o = await stop({ sexton: ['--drain-delay', '3'], model: { kind: 'removal', afterMs: REMOVAL_MS } });
    expect(o.failed).toBe(0);
    expect(o.stopMs).toBeGreaterThanOrEqual(3000);
    console.log(`wasted: ${((o.stopMs - REMOVAL_MS) / 1000).toFixed(2)} s after the removal, against ${QUIET_S} s of quiet`);
  }, 60_000);
});
