// Helpers for the core behaviour tests: sexton outside a PID namespace, sexton under a
// pseudo-terminal, and reading a process's state from the host.
import { execa, type ResultPromise } from 'execa';
import { readFileSync } from 'node:fs';
import { asPid1, untilExecuted, sextonArgv, until } from './pid1';
import { hostDescendants, track } from './processes';
import { childrenOf } from '../../src/harness/namespace';


export function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    return [];
  }
}

function comm(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/** sexton run directly by this test process: not PID 1 of anything. */
export function runDirect(args: string[], timeoutMs = 15_000) {
  const [node, ...rest] = sextonArgv(args);
  const proc = execa(node, rest, { reject: false, stdin: 'ignore', timeout: timeoutMs, killSignal: 'SIGKILL' });
  track(proc.pid);
  return proc;
}

/** Quotes words for `sh -c`. */
export function shellQuote(words: string[]): string {
  return words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
}

export interface TerminalRun {
  /** The `script` process; stdin is what is typed into the terminal, stdout what it shows. */
  proc: ResultPromise<{ reject: false; stdin: 'pipe' }>;
  /** Host pid of sexton, PID 1 of its namespace. */
  pid1: number;
  screen(): string;
  type(text: string): void;
}

/**
 * Runs sexton (or `argv`) as PID 1 of a fresh PID namespace on a pseudo-terminal made by util-linux `script`.
 * Whatever is written to script's stdin is typed into the terminal.
 */
export async function runInTerminal(args: string[], timeoutMs = 20_000, argv = sextonArgv(args)): Promise<TerminalRun> {
  const inner = shellQuote(asPid1(argv));
  const proc = execa('script', ['--quiet', '--return', '--command', inner, '/dev/null'], {
    reject: false,
    stdin: 'pipe',
    timeout: timeoutMs,
    killSignal: 'SIGKILL',
    env: { SHELL: '/bin/sh' },
  });
  track(proc.pid);
  let screen = '';
  proc.stdout?.on('data', (d) => (screen += d));
  // script → sh -c (or not, when sh execs) → unshare → PID 1. script's exit ends the wait: a
  // PID 1 gone before it was seen is not waited for.
  let over = false;
  void proc.finally(() => (over = true));
  const found = await until<number | 'gone'>(() => {
    const unshare = hostDescendants(proc.pid as number).find((pid) => comm(pid) === 'unshare');
    return (unshare === undefined ? undefined : childrenOf(unshare)[0]) ?? (over && 'gone');
  }, 10_000, 'PID 1 under script');
  if (found === 'gone') throw new Error(`script ended before PID 1 was seen; the terminal showed: ${JSON.stringify(screen)}`);
  const pid1 = found;
  await untilExecuted(pid1);
  return {
    proc,
    pid1,
    screen: () => screen,
    type: (text) => proc.stdin?.write(text),
  };
}
