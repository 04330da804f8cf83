// The harness's workloads, each run as PID 1 under a chosen init and summarised.
import { distFile, InitChoice, Pid1Report, runAsPid1, Sample } from './pid1';

export const WORKLOADS = ['orphans', 'zombie-pod', 'pid-exhaustion', 'storm'] as const;
export type WorkloadName = (typeof WORKLOADS)[number];

export interface WorkloadOptions {
  init?: InitChoice;
  /** orphans/storm: how many orphans; zombie-pod: how many parents; pid-exhaustion: seconds. */
  size?: number;
  /** pid-exhaustion: the pids cgroup limit. */
  pidsMax?: number;
  onSample?: (sample: Sample) => void;
  /** SIGKILL the namespace this long after SIGTERM if PID 1 has not exited (default 3000). */
  killAfterStopMs?: number;
}

export interface WorkloadReport extends Pid1Report {
  workload: WorkloadName;
  /** pid-exhaustion: batches in which a fork failed at the full pids limit (Node's spawn, or the shell's). */
  eagain: number;
  /** storm: zombies 100 ms after the last orphan was made, and ms until none were left. */
  zombiesAfter100ms?: number;
  drainMs?: number | null;
}

/** How long each workload runs before the harness stops the pod, after its "ready" event. */
const STOP_AFTER_READY_MS: Record<WorkloadName, number> = {
  orphans: 1000, 'zombie-pod': 2000, 'pid-exhaustion': 500, storm: 1000,
};

export async function runWorkload(workload: WorkloadName, options: WorkloadOptions = {}): Promise<WorkloadReport> {
  const command = [
    process.execPath, distFile('workload.js'), workload, ...(options.size === undefined ? [] : [String(options.size)]),
  ];
  let eagain = 0;
  let readyAtMs: number | undefined;
  const started = Date.now();
  const report = await runAsPid1(command, {
    init: options.init,
    pidsMax: workload === 'pid-exhaustion' ? options.pidsMax ?? 200 : undefined,
    timeoutMs: 60_000,
    killAfterStopMs: options.killAfterStopMs ?? 3000,
    onSample: options.onSample,
    onLine(line, stop) {
      let event: { event?: string; eagain?: number };
      try {
        event = JSON.parse(line);
      } catch {
        return;
      }
      const name = event.event;
      if (!name?.endsWith('-created') && !name?.endsWith('-done') && !name?.endsWith('-started')) return;
      eagain = event.eagain ?? 0;
      readyAtMs = Date.now() - started;
      stop(STOP_AFTER_READY_MS[workload]);
    },
  });
  const result: WorkloadReport = { ...report, workload, eagain };
  if (workload === 'storm' && readyAtMs !== undefined) {
    const after = report.samples.filter((s) => s.atMs >= (readyAtMs as number));
    result.zombiesAfter100ms = after.find((s) => s.atMs >= (readyAtMs as number) + 100)?.zombies ?? 0;
    const drained = after.find((s) => s.zombies === 0);
    result.drainMs = drained ? Math.max(0, drained.atMs - readyAtMs) : null;
  }
  return result;
}
