// `sexton harness WORKLOAD [--init none|sexton|'PREFIX'] [--json] [--size N]`
import { writeSync } from 'node:fs';
import { HARNESS_EXIT } from '../config/exit-codes';
import { writeOrDrop } from '../platform/log';
import { assertNoZombieLeak, VERDICT_EXIT_CODES } from './verdict';
import { runWorkload, WORKLOADS, WorkloadName, WorkloadReport } from './workloads';

export const HARNESS_USAGE = `Usage: sexton harness WORKLOAD [--init none|sexton|'COMMAND PREFIX'] [--json] [--size N]

Runs WORKLOAD as PID 1 of a fresh PID namespace under the init, watches its zombies through
/proc, stops it with SIGTERM once it has done its damage, and reports.

Workloads:
  orphans         the app keeps running while it makes N orphans that exit (N=200)
  zombie-pod      10 parents zombie-1..zombie-10 each hold a zombie they never wait for
  pid-exhaustion  under a pids cgroup limit (200), fork orphans for N s (3) and until
                  a fork fails or 400 were made (at most 20 s); counts EAGAIN
  storm           N orphans as fast as possible (2000): peak, zombies 100 ms after, drain time

Exit status, and the JSON's "verdict":
  0  clean        no live parent held a zombie; none was left when PID 1 exited
  3  app-leaks    live parents held zombies while the app ran (the app's bug); the init
                  left none when it exited
  1  init-failed  zombies were left when PID 1 exited, or PID 1 did not exit and was killed
  4  not-run      PID 1 never started: nothing was proven
  2  bad input

--init none runs the workload as PID 1 itself; sexton (default) uses this package's sexton
with --grace 2; anything else is an init's command prefix, e.g. --init 'tini --'.

Root and non-root:
  as root (CAP_SYS_ADMIN)  a PID namespace; pid-exhaustion's limit in a pids cgroup (v1, or v2)
  as any other user        a user namespace first (unshare --user --map-root-user), then the
                           same PID namespace: the same workloads, verdicts and exit codes.
                           pid-exhaustion's limit needs a cgroup v2 subtree delegated to you
                           (a systemd user slice); without one the report says the pids limit
                           is unavailable and the run goes on without it.
  where the kernel forbids unprivileged user namespaces (user.max_user_namespaces = 0,
  kernel.unprivileged_userns_clone = 0, kernel.apparmor_restrict_unprivileged_userns = 1 on
  Ubuntu 23.10+) or a container's seccomp profile does, the verdict is not-run (exit 4) and the
  report names the cause and how to lift it, in one line.
  'sexton --strict -- COMMAND' needs neither: as a subreaper it fails (exit 70) a COMMAND that
  exits 0 but left orphans or held zombies, as any user, in any container.`;

function out(text: string): void {
  writeSync(1, text);
}

/** Progress is optional: a write that fails is dropped. */
const progress = (text: string): void => writeOrDrop(2, text);

export function formatReport(r: WorkloadReport): string {
  const rows: [string, string][] = [
    ['workload', r.workload],
    ['init', r.init],
    ['exit', r.timedOut ? 'did not exit after SIGTERM: killed' : String(r.exitCode)],
    ['duration', `${(r.durationMs / 1000).toFixed(1)} s`],
    ['peak zombies', String(r.peakZombies)],
    ['zombies before stop', String(r.zombiesBeforeStop)],
    ['held by live parents', `${r.zombiesHeldByLiveParents} (the app's: no init can reap them while the parent lives)`],
    ['left when PID 1 exited', `${r.zombiesLeftAtExit}${r.timedOut ? ' (PID 1 was killed)' : ''} (the init's)`],
    ['verdict', r.verdict],
  ];
  if (r.namespace === 'user') {
    rows.splice(2, 0, ['namespace', 'user (not privileged: a user namespace, then the PID namespace)']);
  }
  if (!r.ran && r.notRunReason) rows.push(['not run', r.notRunReason]);
  if (r.pidsLimitUnavailable) rows.push(['pids limit', r.pidsLimitUnavailable]);
  if (r.workload === 'pid-exhaustion') rows.push(['fork EAGAIN', String(r.eagain)]);
  if (r.workload === 'storm') {
    rows.push(['zombies 100 ms after', String(r.zombiesAfter100ms)]);
    rows.push(['drain time', r.drainMs === null ? 'never drained' : `${r.drainMs} ms`]);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  if (r.zombieParents.length > 0) {
    lines.push('  live parents holding zombies while the app ran:');
    for (const p of r.zombieParents) {
      lines.push(`    pid ${p.pid} ${p.command}: ${p.zombies} zombie(s), oldest ${(p.oldestMs / 1000).toFixed(1)} s`);
    }
  }
  if (r.sextonStats) {
    const s = r.sextonStats;
    lines.push(
      `  sexton at exit: reaped ${s.reaped} (${s.orphansReaped} orphans), ${s.zombieCount} zombies left, ` +
        `survivors killed: ${s.survivorsKilled ?? 0}`,
    );
  }
  // sexton's log, less the per-process lines of the kill round (the parents above say it).
  const sextonLines = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('sexton:') && !/grace period over:| holds \d+ zombie/.test(l));
  if (sextonLines.length > 0) lines.push('  sexton said:', ...sextonLines.map((l) => `    ${l}`));
  return `${lines.join('\n')}\n`;
}

export async function harnessMain(argv: string[]): Promise<number> {
  let workload: string | undefined;
  let init = 'sexton';
  let json = false;
  let size: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') json = true;
    else if (arg === '--init') init = argv[++i] ?? '';
    else if (arg.startsWith('--init=')) init = arg.slice(7);
    else if (arg === '--size') size = Number(argv[++i]);
    else if (arg === '-h' || arg === '--help') return out(`${HARNESS_USAGE}\n`), 0;
    else if (!arg.startsWith('-') && workload === undefined) workload = arg;
    else return usage(`unknown harness option '${arg}'`);
  }
  if (!WORKLOADS.includes(workload as WorkloadName)) {
    return usage(`unknown workload '${workload ?? ''}' (${WORKLOADS.join(', ')})`);
  }
  if (init === '') return usage('--init needs a value');
  if (size !== undefined && !(Number.isInteger(size) && size > 0)) return usage('--size needs a positive whole number');

  const live = !json && process.stderr.isTTY;
  const report = await runWorkload(workload as WorkloadName, {
    init,
    size,
    onSample: (s) => {
      const at = (s.atMs / 1000).toFixed(1);
      if (live) {
        progress(
          `\r  ${at} s  zombies ${String(s.zombies).padStart(5)}  ` +
            `processes ${String(s.processes).padStart(5)} `,
        );
      } else if (!json && s.atMs % 1000 < 50) {
        progress(`  ${at} s  zombies ${s.zombies}  processes ${s.processes}\n`);
      }
    },
  });
  if (live) progress('\n');
  out(json ? `${JSON.stringify(report)}\n` : formatReport(report));
  try {
    assertNoZombieLeak(report);
  } catch (leak) {
    // A run that never started has said why in its table; the leak lines would only repeat it.
    if (!json && report.ran) {
      const [headline, ...problems] = (leak as Error).message.split('\n');
      const shown = problems.slice(0, 3).concat(problems.length > 3 ? [`  (+${problems.length - 3} more)`] : []);
      out(`\n${headline}\n${shown.join('\n')}\n`);
    }
  }
  return VERDICT_EXIT_CODES[report.verdict];
}

function usage(message: string): number {
  progress(`sexton harness: ${message}\nTry 'sexton harness --help'.\n`);
  return HARNESS_EXIT.usage;
}
