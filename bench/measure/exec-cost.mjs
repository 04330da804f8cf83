// What an exec probe costs the container it runs in, per call (bench/exec-cost.c: wait4's
// rusage, so the CPU of the whole call and its peak RSS, sh's exec into a native tool included):
//   - `sexton probe --timeout 5 -- true` against `timeout 5 true`
//   - `sexton status --ready` and `sexton status` (the table) against socat reading the same
//     status socket (the bytes alone, no client logic), with a sexton as PID 1 answering
// Both through the `sexton` command, as a probe runs it (its sh line execs the native tool).
import { statSync } from 'node:fs';
import { startPid1 } from '../lib/pid1.mjs';
import { compileBench, SEXTON } from '../lib/setup.mjs';
import { execFileSync } from 'node:child_process';

function cost(tool, calls, expected, command) {
  return JSON.parse(execFileSync(tool, [String(calls), String(expected), ...command], { encoding: 'utf8', timeout: 120_000 }));
}

export async function measureExecCost({ calls }) {
  const tool = compileBench('exec-cost');
  const run = await startPid1([process.execPath, SEXTON, '--', 'sleep', '600'], { lines: false });
  try {
    const name = `sexton-status.${statSync(`/proc/${run.pid1}/ns/pid`).ino}`;
    // The status socket is bound at the spawn; ask until it answers.
    for (let i = 0; i < 100 && cost(tool.binary, 1, 0, [SEXTON, 'status', '--socket', `@${name}`, '--pid', String(run.pid1), '--ready']).failed; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const status = [SEXTON, 'status', '--socket', `@${name}`, '--pid', String(run.pid1)];
    // Node 22 and later bind the abstract name at its own length (Node 20 bound the whole
    // sockaddr_un, which needed socat's unix-tightsocklen=0): socat's default matches it.
    const socat = ['socat', '-u', `ABSTRACT-CONNECT:${name}`, '-'];
    const rounds = {
      probe: cost(tool.binary, calls, 0, [SEXTON, 'probe', '--timeout', '5', '--', 'true']),
      timeout: cost(tool.binary, calls, 0, ['timeout', '5', 'true']),
      statusReady: cost(tool.binary, calls, 0, [...status, '--ready']),
      statusTable: cost(tool.binary, calls, 0, status),
      socat: cost(tool.binary, calls, 0, socat),
    };
    return { calls, ...rounds };
  } finally {
    await run.kill();
    tool.remove();
  }
}
