// sexton as dumb-init: its flags, variables, exit codes, setsid mode and job control. The
// words are sexton's.
import { constants } from '../platform/os-constants';
import { DEBUG, QUIET } from '../platform/log';
import { CHILD_SESSION } from '../platform/native';
import type { OptionSpec } from '../config/option-table';
import { optionsUsage } from '../config/option-table';
import { scan, UsageError } from '../config/options';
import { quote } from '../config/quote';
import { extrasNote, extrasOptions, PersonalityRequest } from './common';

const { SIGTSTP, SIGTTIN, SIGTTOU, SIGSTOP, SIGKILL, SIGCHLD } = constants.signals;

/** Signals a shell uses to stop a job: forwarded, after which dumb-init stops itself. */
export const JOB_STOP_SIGNALS = [SIGTSTP, SIGTTIN, SIGTTOU];

/** dumb-init's signal numbers for -r stop at 31. */
const MAX_SIGNAL = 31;

export const DUMB_INIT_TABLE: readonly OptionSpec[] = [
  { long: 'single-child', short: 'c', env: 'DUMB_INIT_SETSID', envValue: '0',
    help: ['no session of its own for the child; signals', 'go to the child only (default: its group)'] },
  { long: 'rewrite', short: 'r', value: 's:r',
    help: ['forward signal number s as r; r=0 drops it', '(repeatable; s 1-31, r 0-31)'] },
  { long: 'verbose', short: 'v', env: 'DUMB_INIT_DEBUG', envValue: '1', help: ['say what happens, on stderr'] },
  { long: 'help', short: 'h', help: ['this text'] },
  { long: 'version', short: 'V', help: ['a dumb-init-style version line'] },
];

export const dumbInitUsage = (): string => `Usage: dumb-init [options] [--] command [args...]

This is sexton answering to the name dumb-init: it runs command as its child in a session
of its own, forwards signals to the child's process group, reaps zombies, and exits with the
child's status as soon as the child exits.

Options:
${optionsUsage(DUMB_INIT_TABLE)}

${extrasNote()}`;

/** The short usage line for a bad -r, in sexton's words. */
export const REWRITE_USAGE = `-r takes s:r, two signal numbers: s from 1 to ${MAX_SIGNAL}, r from 0 ` +
  `to ${MAX_SIGNAL} (0 drops the signal); repeatable`;

export interface DumbInitExtra {
  /** The child leads a session of its own and signals go to its process group. */
  setsid: boolean;
  /** What the SIGTERM sent when the child exits becomes under -r (0: none). */
  termOnExit: number;
}

function parseRewrite(text: string): [number, number] {
  const m = /^\s*(\d+):(\d+)\s*$/.exec(text);
  const [from, to] = m ? [Number(m[1]), Number(m[2])] : [0, -1];
  if (from < 1 || from > MAX_SIGNAL || to < 0 || to > MAX_SIGNAL) throw new UsageError(
    `rewrite ${quote(text)}: ${REWRITE_USAGE}`);
  return [from, to];
}

export function parseDumbInit(argv: string[], env: NodeJS.ProcessEnv): PersonalityRequest<DumbInitExtra> {
  const { given, command } = scan(argv, DUMB_INIT_TABLE);
  const has = (flag: string) => given.some((g) => g.flag === flag);
  // As getopt reads them: -h and -V act at once, a bad -r fails at once, both before the command is looked for.
  const rewrites = new Map<number, number>();
  for (const g of given) {
    if (g.flag === 'help' || g.flag === 'version') return { kind: g.flag };
    if (g.flag === 'rewrite') rewrites.set(...parseRewrite(g.value as string));
  }
  if (command.length === 0) throw new UsageError('no command given: what should dumb-init run?');

  const options = extrasOptions([], command, env);
  // The variables are read after the options, and only these exact values count.
  const verbose = has('verbose') || env.DUMB_INIT_DEBUG === '1';
  const setsid = !has('single-child') && env.DUMB_INIT_SETSID !== '0';
  options.verbosity = verbose ? DEBUG : QUIET;
  options.subreaper = false;  // dumb-init never registers as one
  options.pgroup = setsid;
  options.childSession = setsid ? CHILD_SESSION.newSession : CHILD_SESSION.sameGroup;
  // In setsid mode the child's group takes SIGSTOP for the job-control signals, unless -r says otherwise.
  if (setsid) for (const signal of JOB_STOP_SIGNALS) if (!rewrites.has(signal)) rewrites.set(signal, SIGSTOP);
  const termOnExit = rewrites.get(constants.signals.SIGTERM) ?? constants.signals.SIGTERM;
  // KILL and STOP cannot be caught and CHLD is the reaper's: rewriting them does nothing, as in dumb-init.
  for (const signal of [SIGKILL, SIGSTOP, SIGCHLD]) rewrites.delete(signal);
  options.rewrites = rewrites;
  return { kind: 'run', options, extra: { setsid, termOnExit } };
}
