// The init as tini or dumb-init: the peer's command line, messages and exit codes around
// sexton's one start path (boot/start-init.ts), which cli.ts runs with what this file makes.
// What that path takes from any command line, sexton's own too, is the InitPlan below.
import { PEER_USAGE_EXIT } from '../config/exit-codes';
import type { UsageError } from '../config/options';
import { VERSION } from '../config/version';
import type { Options } from '../config/options';
import type { SupervisorHooks } from '../init/supervisor';
import type { Native } from '../platform/native';
import { DEBUG, Logger } from '../platform/log';
import { exitsWithMainChild, getoptLine, shownWord, unreadVariables } from './common';
import { isPersonality, PersonalityName } from './detect';
import { dumbInitUsage, JOB_STOP_SIGNALS, parseDumbInit } from './dumb-init';
import { LICENSE } from './license';
import { parseTini, tiniPrefix, tiniSink, tiniUsage } from './tini';

/**
 * What sexton, tini and dumb-init each hand the one start path (boot/start-init.ts): the options,
 * where log lines go, their own set-up before the spawn, and the supervisor's hooks.
 */
export interface InitPlan {
  options: Options;
  /** The log, opening the addon's sinks it writes to. */
  logger(native: Native): Logger;
  /** Set-up of the personality's own, after the guards and before the spawn. */
  prepare?(native: Native, log: Logger): void;
  hooks?: SupervisorHooks;
  /** After the spawn, so it must not fail: dumb-init lets go of its working directory. */
  afterSpawn?(): void;
}

/** What a command line asks for: text to print (help, version, licence), or an init to run. */
export type StartRequest = { kind: 'print'; fd: 1 | 2; text: string } | { kind: 'run'; plan: InitPlan };

function tiniRequest(argv: string[], env: NodeJS.ProcessEnv): StartRequest {
  const request = parseTini(argv, env);
  if (request.kind === 'help') return { kind: 'print', fd: 1, text: `${tiniUsage()}\n` };
  // One line with "tini version", as catatonit prints it: `docker info` parses it.
  if (request.kind === 'version') return { kind: 'print', fd: 1, text: `tini version ${VERSION}_sexton\n` };
  if (request.kind === 'license') return { kind: 'print', fd: 1, text: LICENSE };
  const { options, extra } = request;
  let log: Logger;
  const sigchld = () => extra.verbosity >= DEBUG && log.debug('Received SIGCHLD');
  return { kind: 'run', plan: {
    options,
    logger: (native) => {
      native.openLogSink(2);
      native.openLogSink(1);
      return (log = new Logger(options.verbosity, options.logFormat, tiniSink((text, fd) => native.writeLog(text, fd)),
        tiniPrefix));
    },
    prepare: (native, log) => {
      const unread = unreadVariables('tini', env);
      if (unread) log.warn(unread);
      native.setReportOrphans(extra.warnOnReap || extra.verbosity >= DEBUG);
    },
    hooks: {
      mainExited: () => (sigchld(), exitsWithMainChild(env)),
      orphanReaped: (pid, unreported) => {
        sigchld();
        if (unreported > 0) log.warn(
          `${unreported} more zombie processes were reaped without a line each: the log fell behind the reaper`);
        if (extra.warnOnReap) log.warn(`Reaped zombie process with pid=${pid}`);
        else log.debug(`reaped orphan pid ${pid}`);
      },
    },
  } };
}

function dumbInitRequest(argv: string[], env: NodeJS.ProcessEnv): StartRequest {
  const request = parseDumbInit(argv, env);
  if (request.kind === 'help') return { kind: 'print', fd: 2, text: `${dumbInitUsage()}\n` };
  if (request.kind === 'license') return { kind: 'print', fd: 2, text: '' };  // dumb-init has no -l
  if (request.kind === 'version') return { kind: 'print', fd: 2, text: `dumb-init v${VERSION}_sexton\n` };
  const { options, extra } = request;
  let log: Logger;
  let errorText: (errno: number) => string;
  return { kind: 'run', plan: {
    options,
    logger: (native) => {
      native.openLogSink(2);
      errorText = (errno) => native.errorText(errno);
      return (log = new Logger(options.verbosity, options.logFormat, (text) => native.writeLog(text),
        () => '[dumb-init] '));
    },
    prepare: (native) => {
      const unread = unreadVariables('dumb-init', env);
      if (unread) log.warn(unread);
      for (const signal of JOB_STOP_SIGNALS) native.setStopSelfAfter(signal, true);
      if (!extra.setsid) return;
      // The child's session takes the terminal: sexton has to let go of it first.
      const { errno, signalsSelf } = native.detachControllingTerminal();
      if (errno !== 0) log.debug(`no controlling terminal to give up (${native.errorText(errno)})`);
      else log.debug(
        `gave up the controlling ` +
          `terminal${signalsSelf ? ' (the SIGHUP and SIGCONT this sends sexton are not forwarded)' : ''}`);
    },
    hooks: {
      mainExited: (pid) => {
        // The pid itself was just reaped and may be reused: only its group still has that number.
        if (extra.setsid && extra.termOnExit > 0) {
          try {
            process.kill(-pid, extra.termOnExit);
            log.debug(`sent signal ${extra.termOnExit} to process group ${pid}`);
          } catch {
            // nobody is left in it
          }
        }
        return exitsWithMainChild(env);
      },
      execFailure: (command, errno) => ({ message: `${shownWord(command)}: ${errorText(errno)}`, exitCode: 2 }),
    },
    afterSpawn: () => process.chdir('/'),  // the init keeps no directory busy; the child keeps the caller's
  } };
}

/** What a peer says about bad input: tini adds its usage, dumb-init a line or two. */
function usageErrorText(name: PersonalityName, error: UsageError): string {
  if (name === 'tini') return `${getoptLine(name, error)}\n${tiniUsage()}\n`;
  if (/^no command given/.test(error.message)) return `${dumbInitUsage().split('\n')[0]}\nSee dumb-init --help for ` +
    `the options.\n`;
  return `${getoptLine(name, error)}\n`;
}

/** How the peer names itself and words bad input; undefined for a name that is no peer. */
export function personalityVoice(name: string): {
  name: PersonalityName; usageError(error: UsageError): string; usageExit: number } | undefined {
  if (!isPersonality(name)) return undefined;
  return { name, usageError: (error) => usageErrorText(name, error), usageExit: PEER_USAGE_EXIT };
}

export function personalityRequest(name: PersonalityName, argv: string[], env: NodeJS.ProcessEnv): StartRequest {
  return name === 'tini' ? tiniRequest(argv, env) : dumbInitRequest(argv, env);
}
