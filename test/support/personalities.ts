// sexton reached through links named tini and dumb-init, next to Debian's real tini and
// dumb-init, run directly (not PID 1) by the test process.
import { execa } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { SEXTON, TINI, until } from './pid1';
import { hostDescendants, procStat, track } from './processes';
import { childrenOf } from '../../src/harness/namespace';

export const DUMB_INIT = '/usr/bin/dumb-init';
export type Peer = 'tini' | 'dumb-init';

/** Fails (never skips) when a peer the tests compare with is missing. */
export function requirePeers(): void {
  for (const file of [TINI, DUMB_INIT]) {
    if (!existsSync(file)) throw new Error(`${file} is missing: these tests compare sexton with it; install it with "apt-get install -y tini dumb-init"`);
  }
}

/** A temp dir with links tini and dumb-init to dist/sexton.js, as an image would make them. */
export class Links {
  readonly dir = mkdtempSync(path.join(tmpdir(), 'sexton-personalities-'));

  constructor() {
    for (const name of ['tini', 'dumb-init']) symlinkSync(SEXTON, path.join(this.dir, name));
  }

  /** The link itself: started through its `#!/bin/sh` line, as the kernel runs it. */
  path(peer: Peer): string {
    return path.join(this.dir, peer);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** [label, executable] for sexton through its link and for the real tool, to run the same test on both. */
export function bothOf(links: () => Links, peer: Peer): [string, () => string][] {
  return [
    [`sexton as ${peer}`, () => links().path(peer)],
    [`Debian's ${peer}`, () => (peer === 'tini' ? TINI : DUMB_INIT)],
  ];
}

export interface DirectOptions {
  env?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/** Runs argv directly, not PID 1 of anything; the promise never rejects. */
export function runTool(argv: string[], options: DirectOptions = {}) {
  const [file, ...args] = argv;
  const proc = execa(file, args, {
    reject: false,
    stdin: 'ignore',
    env: options.env,
    cwd: options.cwd,
    timeout: options.timeoutMs ?? 15_000,
    killSignal: 'SIGKILL',
  });
  track(proc.pid);
  return proc;
}

/** runTool to its end; the result also has the pid it ran as. */
export async function runToEnd(argv: string[], options: DirectOptions = {}) {
  const proc = runTool(argv, options);
  const result = await proc;
  return { ...result, stdout: String(result.stdout), stderr: String(result.stderr), pid: proc.pid as number };
}

/** Resolves once the run's stdout has shown `text`. */
export function printed(run: ReturnType<typeof runTool>, text: string, timeoutMs = 10_000): Promise<void> {
  let seen = '';
  run.stdout?.on('data', (chunk) => (seen += chunk));
  return until(() => seen.includes(text), timeoutMs, `${JSON.stringify(text)} on stdout; have ${JSON.stringify(seen)}`).then(() => undefined);
}

/** argv run as the leader of a new process group (setpgid), its parent still this process. */
export function inOwnProcessGroup(argv: string[]): string[] {
  return ['perl', '-e', 'setpgrp(0, 0) or die "setpgrp: $!"; exec { $ARGV[0] } @ARGV or die "exec: $!"', ...argv];
}

/** The single child of `pid`, once it has one. */
export function onlyChild(pid: number): Promise<number> {
  return until(() => childrenOf(pid)[0], 10_000, `a child of ${pid}`);
}

export const state = (pid: number) => procStat(pid)?.state;
/** Not gone and not a zombie: in any state a live process has (S, R, D…). */
export const alive = (pid: number) => !['Z', 'X', undefined].includes(state(pid));
export const running = (pid: number) => alive(pid) && state(pid) !== 'T';

function comm(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** The first process under pid that has exec'd `name` (a forked shell is not it yet). */
export function descendantNamed(pid: number, name: string): Promise<number> {
  return until(() => hostDescendants(pid).find((p) => comm(p) === name), 10_000, `${name} under ${pid}`);
}
