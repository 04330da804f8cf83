// What the container tests do with podman: start containers they name, look inside, stop them,
// and always remove them (`podman rm -f -t 0`) afterwards.
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { inject } from 'vitest';
import { podman } from './podman';
import { until } from '../support/pid1';

export const APPS = path.join(__dirname, 'apps');
export const images = () => inject('images');
const engine = () => inject('engine');

const started = new Set<string>();

export interface StartOptions {
  env?: Record<string, string>;
  /** host path → container path */
  volumes?: Record<string, string>;
  entrypoint?: string;
  /** More `podman run` options, e.g. --read-only. */
  runFlags?: string[];
  /** podman's --network; none (no network at all) unless a test needs one. */
  network?: string;
}

/** `podman run -d` with no network and the test apps at /apps; returns the container's name. */
export async function start(image: string, command: string[], options: StartOptions = {}): Promise<string> {
  const name = `sexton-test-${randomBytes(4).toString('hex')}`;
  started.add(name);
  const volumes = { [APPS]: '/apps:ro', ...options.volumes };
  await podman(engine(), [
    'run', '-d', `--network=${options.network ?? 'none'}`, '--name', name,
    ...Object.entries(options.env ?? {}).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    ...Object.entries(volumes).flatMap(([host, inside]) => ['-v', `${host}:${inside}`]),
    ...(options.entrypoint ? ['--entrypoint', options.entrypoint] : []),
    ...(options.runFlags ?? []),
    image,
    ...command,
  ]);
  return name;
}

/** For afterEach: removes every container this file started, running or not. */
export async function removeAll(): Promise<void> {
  for (const name of started) {
    await podman(engine(), ['rm', '-f', '-t', '0', name], { reject: false });
    started.delete(name);
  }
}

/** Runs a container to its end; returns its exit code (from `podman wait`) and its output. */
export async function runToEnd(image: string, command: string[], options: StartOptions = {}): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const name = await start(image, command, options);
  const exitCode = await waitExit(name);
  const { stdout, stderr } = await podman(engine(), ['logs', name]);
  return { exitCode, stdout, stderr };
}

export async function logs(name: string): Promise<string> {
  const { stdout, stderr } = await podman(engine(), ['logs', name]);
  return stdout + stderr;
}

export async function waitForLog(name: string, text: string, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const output = await logs(name);
    if (output.includes(text)) return output;
    if (Date.now() > deadline) throw new Error(`container ${name} did not print '${text}' in ${timeoutMs} ms:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function exec(name: string, command: string[]): Promise<string> {
  return (await podman(engine(), ['exec', name, ...command])).stdout;
}

export interface SextonStatus {
  pid: number;
  orphansReaped: number;
  zombieCount: number;
  mainChild: { pid: number };
}

/**
 * `sexton status --json` (`sexton`: its path in the container), once sexton, the container's
 * PID 1, has reaped `count` orphans.
 */
export async function untilReaped(name: string, count: number, sexton = 'sexton'): Promise<SextonStatus> {
  return until(async () => {
    const status = JSON.parse(await exec(name, [sexton, 'status', '--json'])) as SextonStatus;
    return status.orphansReaped >= count && status;
  }, 15_000, `${count} orphans reaped in ${name}`);
}

/** Waits until the container holds `count` zombies (a PID 1 that never reaps). */
export async function untilZombies(name: string, count: number, timeoutMs = 15_000): Promise<void> {
  await until(async () => (await zombies(name)).length >= count, timeoutMs, `${count} zombies in ${name}`);
}

/** Waits until `podman top` shows PID 1's child running `command`: sexton has spawned it. */
export async function untilChild(name: string, command: string, timeoutMs = 15_000): Promise<string[]> {
  return until(async () => {
    const rows = await top(name);
    const child = rows.map((row) => /^\d+\s+(\d+)\s+(.*?)\s*$/.exec(row)).some((m) => m?.[1] === '1' && m[2] === command);
    return child && rows;
  }, timeoutMs, `'${command}' running under PID 1 in ${name}`);
}

export interface Proc {
  pid: number;
  ppid: number;
  stat: string;
  command: string;
}

/** The container's processes, seen from inside with busybox ps. */
export async function processes(name: string): Promise<Proc[]> {
  const out = await exec(name, ['ps', '-o', 'pid,ppid,stat,args']);
  return out
    .split('\n')
    .slice(1)
    .map((line) => /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), stat: m[3], command: m[4] }))
    .filter((p) => !p.command.startsWith('ps -o'));
}

export async function zombies(name: string): Promise<Proc[]> {
  return (await processes(name)).filter((p) => p.stat.startsWith('Z'));
}

/** `podman top`: the container's processes as the host sees them (PID 1 first). */
export async function top(name: string): Promise<string[]> {
  const { stdout } = await podman(engine(), ['top', name, 'pid', 'ppid', 'args']);
  return stdout.split('\n').slice(1).filter(Boolean);
}

/** `podman stop -t seconds`; resolves with how long podman took. */
export async function stop(name: string, seconds: number): Promise<number> {
  const result = await podman(engine(), ['stop', '-t', String(seconds), name], { timeoutMs: (seconds + 30) * 1000 });
  return result.durationMs;
}

export async function kill(name: string, signal: string): Promise<void> {
  await podman(engine(), ['kill', '-s', signal, name]);
}

/** `podman wait`: the container's exit code. */
export async function waitExit(name: string, timeoutMs = 30_000): Promise<number> {
  const { stdout } = await podman(engine(), ['wait', name], { timeoutMs });
  return Number(stdout.trim());
}
