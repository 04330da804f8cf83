// sexton as tini: tini's flags, variables, exit codes and log prefix. The words are sexton's.
import { DEBUG, DEFAULT, LinePrefix, LogSink } from '../platform/log';
import type { OptionSpec } from '../config/option-table';
import { optionsUsage } from '../config/option-table';
import { Given, scan, UsageError } from '../config/options';
import { quote } from '../config/quote';
import { extrasNote, extrasOptions, PersonalityRequest } from './common';

export const TINI_TABLE: readonly OptionSpec[] = [
  { long: 'subreaper', short: 's', shortOnly: true, env: 'TINI_SUBREAPER', envValue: '<any>',
    help: ['register as child subreaper (when not PID 1)'] },
  { long: 'verbose', short: 'v', shortOnly: true, env: 'TINI_VERBOSITY', envValue: 'N',
    help: ['one level more of log lines (1 = warnings)'] },
  { long: 'warn-on-reap', short: 'w', shortOnly: true, help: ['warn about each reaped process but the child'] },
  { long: 'pgroup', short: 'g', shortOnly: true, env: 'TINI_KILL_PROCESS_GROUP', envValue: '<any>',
    help: ["forward signals to the child's process group"] },
  { long: 'pdeath', short: 'p', shortOnly: true, value: 'SIGNAL', help: ['signal sexton gets when its parent dies'] },
  { long: 'remap-exit', short: 'e', shortOnly: true, value: 'CODE',
    help: ['report child exit CODE as 0 (repeatable)'] },
  { long: 'license', short: 'l', shortOnly: true, help: ["sexton's licence"] },
  { long: 'help', short: 'h', shortOnly: true, help: ['this text'] },
  { long: 'version', help: ['a tini-style version line'] },
];

export const tiniUsage = (): string => `Usage: tini [options] [--] command [args...]

This is sexton answering to the name tini: it runs command as its child, reaps zombies,
forwards signals, and exits with the child's status as soon as the child exits.

Options:
${optionsUsage(TINI_TABLE)}

${extrasNote()}`;

export interface TiniExtra {
  /** tini's own level: 0 fatal only, 1 warnings, 2 info, 3 debug, 4 trace. */
  verbosity: number;
  warnOnReap: boolean;
}

/** TINI_VERBOSITY as tini reads it (a number), but a word that is no number is refused. */
function verbosityVariable(text: string): number {
  const m = /^\s*(-?\d+)/.exec(text);
  if (!m) throw new UsageError(`TINI_VERBOSITY=${quote(text)}: expected a number`);
  return Math.max(0, Number(m[1]));
}

export function parseTini(argv: string[], env: NodeJS.ProcessEnv): PersonalityRequest<TiniExtra> {
  const { given, command } = scan(argv, TINI_TABLE);
  const has = (flag: string) => given.some((g: Given) => g.flag === flag);
  if (has('help')) return { kind: 'help' };
  if (has('version')) return { kind: 'version' };
  if (has('license')) return { kind: 'license' };
  if (command.length === 0) throw new UsageError('no command given: what should tini run?');

  // -p and -e mean what sexton's --pdeath and --remap-exit mean: its parser checks them.
  const sextonFlags: string[] = [];
  for (const g of given) {
    if (g.flag === 'pdeath') sextonFlags.push('--pdeath', g.value as string);
    if (g.flag === 'remap-exit') sextonFlags.push('--remap-exit', g.value as string);
  }
  const options = extrasOptions(sextonFlags, command, env);
  // tini reads its variables after the flags: TINI_VERBOSITY wins over -v.
  let verbosity = 1 + given.filter((g) => g.flag === 'verbose').length;
  if (env.TINI_VERBOSITY !== undefined) verbosity = verbosityVariable(env.TINI_VERBOSITY);
  options.verbosity = Math.min(DEBUG, verbosity);
  options.subreaper = has('subreaper') || env.TINI_SUBREAPER !== undefined;
  options.pgroup = has('pgroup') || env.TINI_KILL_PROCESS_GROUP !== undefined;
  return { kind: 'run', options, extra: { verbosity, warnOnReap: has('warn-on-reap') } };
}

const LEVEL_TAGS = ['FATAL', 'WARN ', 'INFO ', 'DEBUG'];

/** tini's levelled prefix: `[WARN  tini (PID)] `. */
export const tiniPrefix: LinePrefix = (level) => `[${LEVEL_TAGS[level]} tini (${process.pid})] `;

/** Where tini sends a line: fatal errors and warnings to stderr, the rest to stdout. */
export function tiniSink(write: (text: string, fd: number) => number): LogSink {
  return (text, level) => write(text, level <= DEFAULT ? 2 : 1);
}
