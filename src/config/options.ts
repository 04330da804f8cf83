// CLI flags and SEXTON_* environment variables → Options. Flags win over the environment.
import { defaultSocketPaths } from './addresses';
import { INIT_EXIT_HELP } from './exit-codes';
import type { LogFormat } from '../platform/log';
import type { ChildSession } from '../platform/native';
import { OPTION_TABLE, OptionSpec, optionNamed, optionsUsage, optionWithShort, variableOf } from './option-table';
import { quote } from './quote';
import { parseSignal, UNHANDLED } from '../platform/signals';
import {
  list, OomPolicy, parseBoolean, parseDrainQuiet, parseExitCode, parseListenAddress, parseOomPolicy, parseRewrite,
  parseSeconds, signalOption, UsageError,
} from './option-values';

export { UsageError };

export interface Options {
  command: string[];
  /** 0 quiet (errors only), 1 default, 2 -v, 3 -vv. */
  verbosity: number;
  subreaper: boolean;
  /** Deliver forwarded signals to the child's process group instead of the child. */
  pgroup: boolean;
  /** signal → signal it is forwarded as; 0 drops it. */
  rewrites: Map<number, number>;
  pdeathSignal?: number;
  /** Child exit codes reported as 0 (a JVM's 143). */
  remapExit: Set<number>;
  /** The signal that starts the stop sequence. */
  stopSignal: number;
  /** The stop signal was named (flag or environment), not taken from the default. */
  stopSignalGiven?: boolean;
  /** Seconds between the stop signal and forwarding it (with drainQuiet: at most); 0: forwarded at once. */
  drainDelay: number;
  /** Seconds with no traffic in the network namespace that end the drain early, the delay its cap; 0: off. */
  drainQuiet: number;
  /** Seconds the process tree gets to exit once the stop signal is forwarded. */
  grace: number;
  /** Exit non-zero when the child succeeded but orphans had to be reaped or zombies were held. */
  strict: boolean;
  /** Paths to try for the status socket; empty means none. Default: on when PID 1. */
  statusSocket: string[];
  /** Serve Prometheus metrics on this address. */
  metrics?: { host: string; port: number };
  /** Serve /livez and /readyz on this address (it may be the metrics one). */
  health?: { host: string; port: number };
  /** When the app counts as ready: once started, or once it sends READY=1 (sd_notify). */
  readyWhen: 'started' | 'notify';
  statsFile?: string;
  logFormat: LogFormat;
  /** The oom_score_adj the child starts with. */
  childOomScoreAdj: OomPolicy;
  /** Set by the dumb-init personality: a session of the child's own, or sexton's group. */
  childSession?: ChildSession;
}

/** A word the option syntax refuses; personalities word it as their peer's getopt does. */
export class OptionSyntaxError extends UsageError {
  constructor(message: string, readonly shown: string, readonly problem: 'unknown' | 'needs-value' | 'takes-no-value') {
    super(message);
  }
}

export type Request =
  | { kind: 'run'; options: Options }
  | { kind: 'help' }
  | { kind: 'version' };

/** The help text; made when asked for, not at each start (formatting the table costs 0.15 ms). */
export const usage = (): string => `Usage: sexton [options] [--] command [args...]
       sexton status [--json] [--max-zombies N]    ask the running sexton (see sexton status --help)
       sexton harness WORKLOAD [--init INIT]       reproduce a zombie-leaking pod (see sexton harness --help)
       sexton scan [--json] [--serve HOST:PORT]    find a node's zombies and their pods (see sexton scan --help)
       sexton probe [--timeout S] -- CMD...        an exec probe that leaves nothing behind (see sexton probe --help)
       sexton code-cache                           compile sexton once for this node binary (faster starts)

Runs command as its child: reaps every zombie, forwards signals, exits with the child's status.

Options (each has an environment variable; a flag wins over it):
${optionsUsage()}

Signals are names (TERM, SIGTERM, RTMIN+3) or numbers. To run a program called status,
harness, scan, probe or code-cache, put -- before it.

Exit status:
${INIT_EXIT_HELP.map(([code, when]) => `  ${code.padEnd(5)}${when}`).join('\n')}`;

/** An option's long name, e.g. 'grace'. */
type Flag = string;

export interface Given { flag: Flag; value?: string }

/** Splits argv into flags and the command; parsing stops at `--` or the first non-option word. */
export function scan(argv: string[], table: readonly OptionSpec[] = OPTION_TABLE): {
  given: Given[]; command: string[] } {
  const given: Given[] = [];
  let i = 0;
  const valueFor = (inline: string | undefined, shown: string): string => {
    const value = inline ?? (i + 1 < argv.length ? argv[++i] : '');
    if (value.trim() === '') throw new OptionSyntaxError(`option ${shown} needs a value`, shown, 'needs-value');
    return value;
  };
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') return { given, command: argv.slice(i + 1) };
    if (!arg.startsWith('-') || arg === '-') break;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      const name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      const spec = optionNamed(name, table);
      const shown = eq < 0 ? arg : arg.slice(0, eq);
      if (!spec) throw new OptionSyntaxError(`unknown option ${quote(shown)}`, shown, 'unknown');
      const inline = eq < 0 ? undefined : arg.slice(eq + 1);
      if (spec.value) given.push({ flag: name, value: valueFor(inline, `--${name}`) });
      else if (inline !== undefined) throw new OptionSyntaxError(`option --${name} takes no value`, `--${name}`,
        'takes-no-value');
      else given.push({ flag: name });
      continue;
    }
    // Short flags cluster (-vv, -gv) and take a value attached or as the next word (-rTERM:INT).
    for (let j = 1; j < arg.length; j++) {
      const spec = optionWithShort(arg[j], table);
      if (!spec) throw new OptionSyntaxError(`unknown option ${quote(`-${arg[j]}`)}`, `-${arg[j]}`, 'unknown');
      if (spec.value) {
        const rest = arg.slice(j + 1);
        given.push({ flag: spec.long, value: valueFor(rest === '' ? undefined : rest, `-${arg[j]}`) });
        break;
      }
      given.push({ flag: spec.long });
    }
  }
  return { given, command: argv.slice(i) };
}

/** An empty variable is an error, not a default: `SEXTON_GRACE=` is a typo, not a wish. */
function refuseEmptyVariables(env: NodeJS.ProcessEnv): void {
  for (const { env: name } of OPTION_TABLE) {
    const value = name === undefined ? undefined : env[name];
    if (value !== undefined && value.trim() === '') throw new UsageError(
      `${name} is set but empty: unset it or give it a value`);
  }
}

/** `isInit`: sexton is PID 1, where the status socket listens unless told otherwise. */
export function parseArgs(argv: string[], env: NodeJS.ProcessEnv, isInit = false): Request {
  const { given, command } = scan(argv);
  refuseEmptyVariables(env);
  const has = (flag: Flag) => given.some((g) => g.flag === flag);
  const values = (flag: Flag) => given.filter((g) => g.flag === flag).map((g) => g.value as string);
  if (has('help')) return { kind: 'help' };
  if (has('version')) return { kind: 'version' };

  /** The option's variable as set in the environment: its name comes from the table. */
  const variable = (flag: Flag): [string, string | undefined] => [variableOf(flag), env[variableOf(flag)]];
  /** A yes/no variable: true when set to yes. */
  const yes = (flag: Flag): boolean => {
    const [name, value] = variable(flag);
    return value !== undefined && parseBoolean(name, value);
  };

  // Quiet wins over verbose, in the environment as with flags.
  let verbosity = 1;
  const [verboseName, verboseValue] = variable('verbose');
  if (verboseValue !== undefined) {
    if (!/^\d+$/.test(verboseValue.trim())) throw new UsageError(`${verboseName}=${quote(verboseValue)}: expected a ` +
      `number`);
    verbosity = Math.min(3, 1 + Number(verboseValue));
  }
  if (yes('quiet')) verbosity = 0;
  const verboseFlags = given.filter((g) => g.flag === 'verbose').length;
  if (verboseFlags > 0) verbosity = Math.min(3, 1 + verboseFlags);
  if (has('quiet')) verbosity = 0;

  const [subreaperName, subreaperValue] = variable('no-subreaper');
  let subreaper = subreaperValue === undefined ? true : parseBoolean(subreaperName, subreaperValue);
  if (has('subreaper')) subreaper = true;
  if (has('no-subreaper')) subreaper = false;

  const strict = has('strict') || yes('strict');
  const pgroup = has('pgroup') || yes('pgroup');

  const rewriteTexts = has('rewrite') ? values('rewrite') : list(variable('rewrite')[1]);
  const rewrites = new Map(rewriteTexts.map(parseRewrite));

  /** The flag's last value, else the environment's, else the table's default. */
  const last = (flag: Flag): string | undefined => {
    if (has(flag)) return values(flag).at(-1);
    const spec = optionNamed(flag);
    return env[spec?.env as string] ?? spec?.default;
  };
  /** The same, for an option the table gives a default. */
  const valueOrDefault = (flag: Flag): string => last(flag) as string;
  const pdeathText = last('pdeath');
  const pdeathSignal = pdeathText === undefined ? undefined : signalOption(pdeathText, 'pdeath');
  if (pdeathSignal === parseSignal('STOP')) throw new UsageError(
    `pdeath ${quote(pdeathText as string)}: sexton would stop, not end`);

  const remapTexts = has('remap-exit') ? values('remap-exit') : list(variable('remap-exit')[1]);
  const remapExit = new Set(remapTexts.map(parseExitCode));

  const stopText = valueOrDefault('stop-signal');
  const stopSignalGiven = has('stop-signal') || variable('stop-signal')[1] !== undefined;
  const stopSignal = signalOption(stopText, 'stop-signal');
  if (UNHANDLED.has(stopSignal)) throw new UsageError(`stop-signal ${quote(stopText)}: sexton never handles it`);
  const drainDelay = parseSeconds('drain-delay', valueOrDefault('drain-delay'));
  const quietText = last('drain-quiet');
  const drainQuiet = quietText === undefined ? 0 : parseDrainQuiet(quietText, drainDelay);
  const grace = parseSeconds('grace', valueOrDefault('grace'));

  const socketText = last('status-socket');
  const statusSocket = socketText === undefined ? (isInit ? defaultSocketPaths() : []) : socketText === 'none' ? [] : [
    socketText];
  const metricsText = last('metrics');
  const metrics = metricsText === undefined ? undefined : parseListenAddress('metrics', metricsText);
  const healthText = last('health');
  const health = healthText === undefined ? undefined : parseListenAddress('health', healthText);
  const readyWhen = valueOrDefault('ready-when').trim();
  if (readyWhen !== 'started' && readyWhen !== 'notify') throw new UsageError(
    `ready-when ${quote(readyWhen)}: expected started or notify`);
  const statsFile = last('stats-file');
  const logFormat = valueOrDefault('log-format') as LogFormat;
  if (logFormat !== 'text' && logFormat !== 'json') throw new UsageError(
    `log-format ${quote(logFormat)}: expected text or json`);
  const childOomScoreAdj = parseOomPolicy(valueOrDefault('child-oom-score-adj'));

  if (command.length === 0) throw new UsageError('no command given: what should sexton run?');
  if (command[0] === '') throw new UsageError("the command is an empty word ('')");
  return { kind: 'run', options: {
    command, verbosity, subreaper, pgroup, rewrites, pdeathSignal, remapExit,
    stopSignal, stopSignalGiven, drainDelay, drainQuiet, grace, strict,
    statusSocket, metrics, health, readyWhen, statsFile, logFormat, childOomScoreAdj,
  } };
}
