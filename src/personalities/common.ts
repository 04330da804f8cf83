// What the tini and dumb-init personalities share: the peer's behaviour is the default, and
// sexton's extras are opt-in through their SEXTON_* variables.
import * as path from 'node:path';
import { OPTION_TABLE, variableOf } from '../config/option-table';
import { OptionSyntaxError, Options, parseArgs, UsageError } from '../config/options';
import { quote } from '../config/quote';

/** sexton's extras a personality honours, from the option table; its other variables are not read. */
export const EXTRAS = OPTION_TABLE.filter((o) => o.peers === 'variable').map((o) => o.env as string);

/**
 * The one line for sexton's variables set in the environment that `name` does not read (the
 * option table's `peers`), or undefined when there are none: set, they must not go unnoticed.
 */
export function unreadVariables(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const unread = OPTION_TABLE.filter((o) => o.env !== undefined && o.peers !== 'variable' && env[o.env] !== undefined);
  if (unread.length === 0) return undefined;
  const said = unread.map((o) => (o.peers === 'peer-flag' ? `${o.env} (${name} has its own flag)` : o.env)).join(', ');
  return `not read as ${name}: ${said}; run as sexton for them`;
}

/**
 * The last lines of both usage texts. The usage texts are made when asked for, not at load: every start
 * loads these modules, and formatting the texts there cost it 0.2-0.35 ms (Node 26).
 */
export function extrasNote(): string {
  return `sexton's own extras are off; each comes on with its variable (see sexton --help):
  ${EXTRAS.slice(0, 5).join(' ')}
  ${EXTRAS.slice(5).join(' ')}`;
}

export type PersonalityRequest<Extra> =
  | { kind: 'run'; options: Options; extra: Extra }
  | { kind: 'help' }
  | { kind: 'version' }
  | { kind: 'license' };

/** For sexton's own parser: flags that stand for the peer's, then the command. */
export function extrasOptions(sextonFlags: string[], command: string[], env: NodeJS.ProcessEnv): Options {
  const extras = Object.fromEntries(EXTRAS.filter((name) => env[name] !== undefined).map((name) => [name, env[name]]));
  const request = parseArgs([...sextonFlags, '--', ...command], extras);
  if (request.kind !== 'run') throw new Error(`unexpected ${request.kind}`);
  const options = request.options;
  const stopSequence = ['grace', 'drain-delay', 'stop-signal'].some((long) => env[variableOf(long)] !== undefined);
  // Signal 0 never arrives: without a stop sequence every signal is simply forwarded.
  if (!stopSequence) options.stopSignal = 0;
  if (env[variableOf('status-socket')] === undefined) options.statusSocket = [];
  // dumb-init leaves the working directory for /: paths given relative must not move with it.
  if (options.statsFile !== undefined) options.statsFile = path.resolve(options.statsFile);
  options.statusSocket = options.statusSocket.map((socket) => path.resolve(socket));
  return options;
}

/** Without SEXTON_GRACE the peer's way: exit with the main child, leaving the rest to the kernel. */
export function exitsWithMainChild(env: NodeJS.ProcessEnv): boolean {
  return env[variableOf('grace')] === undefined;
}

/** A word echoed in a peer-style message: as it is when printable, else quoted and escaped. */
export function shownWord(word: string): string {
  const quoted = quote(word);
  return quoted === `'${word}'` ? word : quoted;
}

/** getopt's wording, which scripts and people know from both peers. */
export function getoptLine(name: string, error: UsageError): string {
  if (!(error instanceof OptionSyntaxError)) return `${name}: ${error.message}`;
  const { shown, problem } = error;
  const long = shown.startsWith('--');
  const option = quote(long ? shown : shown.slice(1));  // getopt quotes it too, unescaped
  if (problem === 'unknown') return long ? `${name}: unrecognized option ${option}` : `${name}: invalid option ` +
    `-- ${option}`;
  if (problem === 'needs-value') return long ? `${name}: option ${option} requires an argument` : `${name}: option ` +
    `requires an argument -- ${option}`;
  return `${name}: option ${option} doesn't allow an argument`;
}
