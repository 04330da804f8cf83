// Helpers for the observability tests: `sexton status` as a client, sockets seen from /proc,
// free ports, and promtool as the reference parser of the Prometheus text format.
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FIXTURES, SEXTON, SLOWDOWN } from './pid1';

export const APP = path.join(FIXTURES, 'obs-app.sh');

/** `sh obs-app.sh ORPHANS ZOMBIE_PARENTS`: the leaking app, as sexton's command. */
export function leakingApp(orphans: number, zombieParents: number): string[] {
  return ['sh', APP, String(orphans), String(zombieParents)];
}


const dirs: string[] = [];

/** A fresh private directory for sockets and stats files (tests run in parallel). */
export function freshDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-obs-'));
  dirs.push(dir);
  return dir;
}

export function removeDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Runs `sexton status ARGS` as a client from the host; never rejects. */
export async function status(args: string[], env: Record<string, string> = {}) {
  const result = await execa(process.execPath, [SEXTON, 'status', ...args], {
    reject: false,
    timeout: 10_000 * SLOWDOWN,
    stdin: 'ignore',
    env: { SEXTON_STATUS_SOCKET: '', ...env },
  });
  return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

/** The snapshot `sexton status --json` prints; throws with the output when it is not JSON. */
export async function statusJson(socket: string, pid1: number): Promise<any> {
  // From the host, sexton is not PID 1 of our PID namespace: name its pid to trust its answer.
  const result = await status(['--json', '--socket', socket, '--pid', String(pid1)]);
  if (result.exitCode !== 0) throw new Error(`sexton status exited ${result.exitCode}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/**
 * Inodes of the sockets a process opened itself: its file descriptors above 2. Its stdio may be
 * sockets it inherited (Node's child_process pipes are socketpairs), and those are not its own.
 */
export function ownSocketInodes(pid: number): number[] {
  const out: number[] = [];
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    if (Number(fd) <= 2) continue;
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.push(Number(m[1]));
    } catch {
      // closed meanwhile
    }
  }
  return out;
}

/** The inode of the listening Unix socket bound to `socketPath`, from the process's network namespace. */
export function unixSocketInode(pid: number, socketPath: string): number | undefined {
  // Num RefCount Protocol Flags Type St Inode Path
  for (const line of readFileSync(`/proc/${pid}/net/unix`, 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // Node pads abstract names (shown as @name) with NULs to the full sun_path, shown as '@'s.
    const bound = fields[7]?.startsWith('@') ? fields[7].replace(/(?<=.)@+$/, '') : fields[7];
    if (bound === socketPath) return Number(fields[6]);
  }
  return undefined;
}


/** The pid a host process has inside its own (innermost) PID namespace. */
export function namespacePid(hostPid: number): number {
  const line = readFileSync(`/proc/${hostPid}/status`, 'utf8').split('\n').find((l) => l.startsWith('NSpid:'));
  return Number((line as string).trim().split(/\s+/).pop());
}


const PROMTOOL = '/usr/bin/promtool';

/** promtool, installed from Debian's `prometheus` package when missing; throws if it cannot be. */
export async function promtool(): Promise<string> {
  if (existsSync(PROMTOOL)) return PROMTOOL;
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await execa('apt-get', ['update', '-qq'], { env, timeout: 120_000 });
  await execa('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'prometheus'], { env, timeout: 180_000 });
  if (!existsSync(PROMTOOL)) throw new Error(`${PROMTOOL} is missing after installing the prometheus package`);
  return PROMTOOL;
}

/** `promtool check metrics` on an exposition text: its exit code and complaints. */
export async function checkMetrics(text: string) {
  const result = await execa(await promtool(), ['check', 'metrics'], { input: text, reject: false, timeout: 20_000 });
  return { exitCode: result.exitCode, output: `${result.stdout}${result.stderr}` };
}

/** The value of one sample, e.g. sample(text, 'sexton_reaped_total{kind="orphan"}'). */
export function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}
