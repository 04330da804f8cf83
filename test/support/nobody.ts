// Runs a command as uid 65534 (nobody), from the checkout, the way .ci/run runs the unit tier:
// the checkout is bind-mounted in a private mount namespace onto a directory nobody can reach
// (wherever the clone lives), then setpriv drops every privilege. Needs root to set that up, and
// fails loudly without it: these tests prove what a normal user can do, so they cannot be skipped.
import { execa } from 'execa';
import { chmodSync, mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ROOT } from './pid1';
import { track } from './processes';

export const NOBODY = 65534;

export interface NobodyRun {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  /** The checkout as nobody saw it (the bind mount): paths in the output name it. */
  root: string;
}

const DROP = 'mount --bind "$1" "$2" && cd "$3" && shift 3 && exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$@"';

export interface NobodyOptions {
  /** Where the checkout appears (an existing directory nobody can reach); default a fresh one. */
  mountAt?: string;
  /** Where to run: a path relative to the checkout, or an absolute one (default the checkout). */
  cwd?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** argv run as root before the drop, ending by running the command it is given (e.g. joining a
   *  cgroup, which nobody could not do from where the test runs). */
  launcher?: string[];
}

/**
 * `argv` as nobody, with HOME=/tmp, PATH kept and the environment given; a path into the
 * checkout, in argv, PATH or a variable, names it where nobody reaches it. Bounded by timeoutMs;
 * what it starts is killed by the usual cleanup.
 */
export async function asNobody(argv: string[], { mountAt, cwd = '.', env = {}, timeoutMs = 60_000, launcher = [] }: NobodyOptions = {}):
  Promise<NobodyRun> {
  if (process.getuid?.() !== 0) throw new Error(`running as uid ${NOBODY} needs root to set up (bind mount, setpriv); this worker is uid ${process.getuid?.()}`);
  const made = mountAt === undefined;
  const reach = mountAt ?? mkdtempSync(path.join(tmpdir(), 'sexton-rootless-'));
  if (made) chmodSync(reach, 0o755);
  try {
    // The checkout's paths as nobody reaches them: the Node line CI runs on lives in the checkout
    // (.ci/node-lines), so process.execPath and PATH may name it too.
    const inside = (p: string) => (p === ROOT || p.startsWith(ROOT + path.sep) ? path.join(reach, path.relative(ROOT, p)) : p);
    const searched = (process.env.PATH ?? '').split(':').map(inside).join(':');
    const [file, ...args] = [...launcher, 'unshare', '--mount', 'sh', '-c', DROP, 'sh', ROOT, reach, path.resolve(reach, cwd),
      'env', '-i', `PATH=${searched}`, 'HOME=/tmp', ...Object.entries(env).map(([k, v]) => `${k}=${inside(v)}`),
      ...argv.map(inside)];
    const proc = execa(file, args, {
      reject: false, stdin: 'ignore', timeout: timeoutMs, killSignal: 'SIGKILL',
    });
    track(proc.pid);
    const result = await proc;
    const stderr = String(result.stderr);
    if (/^setpriv: |^mount: |^unshare: unshare failed/m.test(stderr)) throw new Error(`could not drop to uid ${NOBODY}: ${stderr.slice(0, 500)}`);
    return { exitCode: result.exitCode, stdout: String(result.stdout), stderr, root: reach };
  } finally {
    if (made) rmdirSync(reach);
  }
}
