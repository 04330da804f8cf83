// One stop of one backend behind the balancer (balancer.ts), measured: the requests that failed
// and how long the stop took. Shared by test/init/drain.test.ts and bench/measure/drain.mjs.
import { Rig, startLoad } from './balancer';
import type { Pid1Run } from './pid1';

export interface Scenario {
  /** sexton's options for the backend that is stopped (the other runs plain). */
  sexton: string[];
  /**
   * How the balancer learns the backend is going: 'removal', taken out of rotation through its
   * runtime API this long after the stop signal (kube-proxy); 'readiness', its health check of
   * /readyz on healthPort (the backend's sexton must serve it).
   */
  model: { kind: 'removal'; afterMs: number } | { kind: 'readiness'; healthPort: number };
  /** The balancer reuses its server connections for any request (http-reuse always). */
  pooled?: boolean;
  /** Requests per second (each a new client connection). */
  rate?: number;
}

export interface Outcome {
  sent: number;
  failed: number;
  failures: Record<string, number>;
  /** The load's longest pause: a pause longer than the quiet window looks like quiet. */
  maxGapMs: number;
  /** Stop signal to the balancer's answer that the backend is out of rotation, ms (model 'removal'). */
  removedMs?: number;
  /** Stop signal to sexton's exit, ms. */
  stopMs: number;
  /** What the stopped backend's sexton logged. */
  log: string;
}

/** Traffic before the stop: every backend is in rotation and warm. */
const WARM_MS = 600;
/** Traffic after the stop and the removal: requests the stopped backend would still fail. */
const TAIL_MS = 400;

export async function runScenario(s: Scenario): Promise<Outcome> {
  const rig = new Rig();
  const runs: Pid1Run[] = [];
  try {
    const pods = [await rig.addPod(), await rig.addPod()];
    // With readiness checks, the other backend must answer them too.
    const other = s.model.kind === 'readiness' ? ['--health', `0.0.0.0:${s.model.healthPort}`] : [];
    const backends = [rig.startBackend(pods[0], 'b0', s.sexton), rig.startBackend(pods[1], 'b1', other)];
    // Both kept for the cleanup even if one fails to start.
    const started = await Promise.allSettled(backends);
    for (const backend of started) if (backend.status === 'fulfilled') runs.push(backend.value);
    for (const backend of started) if (backend.status === 'rejected') throw backend.reason;
    const check = s.model.kind === 'readiness' ? { port: s.model.healthPort } : undefined;
    await rig.startHaproxy({ pooled: s.pooled, check });
    if (check) await rig.untilUp();
    const removalMs = s.model.kind === 'removal' ? s.model.afterMs : 0;
    const load = await startLoad(rig.port, s.rate ?? 100, 30_000);
    await new Promise((r) => setTimeout(r, WARM_MS));
    const stoppedAt = Date.now();
    runs[0].signal('SIGTERM');
    let removedMs: number | undefined;
    const removal = s.model.kind === 'removal'
      ? new Promise((r) => setTimeout(r, removalMs)).then(() => rig.remove(0)).then(() => (removedMs = Date.now() - stoppedAt))
      : Promise.resolve();
    const done = await runs[0].done();
    const stopMs = Date.now() - stoppedAt;
    await removal;
    await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + removalMs - Date.now()) + TAIL_MS));
    const result = await load.stop();
    runs[1].signal('SIGTERM');
    await runs[1].done();
    return { ...result, removedMs, stopMs, log: done.stderr };
  } finally {
    for (const run of runs) run.signal('SIGKILL');
    await Promise.all(runs.map((run) => run.done()));
    await rig.close();
  }
}
