// Helpers for the harness tests: run `sexton harness` as a command, clean up what the harness
// library started, and insist on tini.
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { SEXTON } from './pid1';
import { hostDescendants } from './processes';


/** The harness has no handle to kill its runs: find every unshare below this worker, by pid. */
export function killHarnessRuns(): void {
  for (const pid of hostDescendants(process.pid)) {
    let comm = '';
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;  // gone
    }
    // unshare --kill-child takes its whole PID namespace with it. A descendant of this worker
    // that is still listed has not been reaped, so its pid is still ours.
    if (comm !== 'unshare') continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export interface CliRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** `node dist/sexton.js harness ...args`, bounded. */
export async function harnessCli(args: string[], timeoutMs = 30_000): Promise<CliRun> {
  const result = await execa(process.execPath, [SEXTON, 'harness', ...args], {
    reject: false, stdin: 'ignore', timeout: timeoutMs, killSignal: 'SIGKILL',
  });
  return { exitCode: result.exitCode, stdout: String(result.stdout), stderr: String(result.stderr) };
}

/** The one JSON object `sexton harness --json` prints. */
export function parseJsonReport(run: CliRun): Record<string, unknown> {
  try {
    return JSON.parse(run.stdout) as Record<string, unknown>;
  } catch {
    throw new Error(`sexton harness --json did not print one JSON object; stdout: ${run.stdout.slice(0, 500)}; stderr: ${run.stderr.slice(-500)}`);
  }
}

