// The init as tini or dumb-init: the peer's command line, messages and exit codes around
// sexton's supervisor. cli.ts hands over here when a personality was asked for.
import { writeSync } from 'node:fs';
import { disableChildProcess, keepInitAlive, shedNodeOptions } from '../init/guards';
import { DEBUG, Logger } from '../platform/log';
import { AddonLoadError, Native, StartError } from '../platform/native';
import { EXIT, PEER_USAGE_EXIT } from '../config/exit-codes';
import { UsageError } from '../config/options';
import { quote } from '../config/quote';
import { Supervisor } from '../init/supervisor';
import { exitsWithMainChild, getoptLine, shownWord } from './common';
import { isPersonality } from './detect';
import { DUMB_INIT_USAGE, JOB_STOP_SIGNALS, parseDumbInit } from './dumb-init';
import { LICENSE } from './license';
import { parseTini, TINI_USAGE, tiniPrefix, tiniSink } from './tini';

declare const SEXTON_VERSION: string;

function write(fd: number, text: string): void {
  try {
    writeSync(fd, text);
  } catch {
    // nowhere left to say it
  }
}

function runTini(argv: string[], native: Native): void {
  const request = parseTini(argv, process.env);
  if (request.kind === 'help') return write(1, `${TINI_USAGE}\n`);
  // One line with "tini version", as catatonit prints it: `docker info` parses it.
  if (request.kind === 'version') return write(1, `tini version ${SEXTON_VERSION}_sexton\n`);
  if (request.kind === 'license') return write(1, LICENSE);
  const { options, extra } = request;
  native.openLogSink(2);
  native.openLogSink(1);
  const log = new Logger(options.verbosity, options.logFormat, tiniSink((text, fd) => native.writeLog(text, fd)), tiniPrefix);
  keepInitAlive(log);
  shedNodeOptions(log, native);
  const sigchld = () => extra.verbosity >= DEBUG && log.debug('Received SIGCHLD');
  native.setReportOrphans(extra.warnOnReap || extra.verbosity >= DEBUG);
  new Supervisor(options, log, native, {
    mainExited: () => (sigchld(), exitsWithMainChild(process.env)),
    orphanReaped: (pid, unreported) => {
      sigchld();
      if (unreported > 0) log.warn(`${unreported} more zombie processes were reaped without a line each: the log fell behind the reaper`);
      if (extra.warnOnReap) log.warn(`Reaped zombie process with pid=${pid}`);
      else log.debug(`reaped orphan pid ${pid}`);
    },
  }).start();
}

function runDumbInit(argv: string[], native: Native): void {
  const request = parseDumbInit(argv, process.env);
  if (request.kind === 'help') return write(2, `${DUMB_INIT_USAGE}\n`);
  if (request.kind === 'license') return;  // dumb-init has no -l
  if (request.kind === 'version') return write(2, `dumb-init v${SEXTON_VERSION}_sexton\n`);
  const { options, extra } = request;
  native.openLogSink(2);
  const log = new Logger(options.verbosity, options.logFormat, (text) => native.writeLog(text), () => '[dumb-init] ');
  keepInitAlive(log);
  shedNodeOptions(log, native);
  for (const signal of JOB_STOP_SIGNALS) native.setStopSelfAfter(signal, true);
  if (extra.setsid) {
    // The child's session takes the terminal: sexton has to let go of it first.
    const { errno, signalsSelf } = native.detachControllingTerminal();
    if (errno !== 0) log.debug(`no controlling terminal to give up (${native.errorText(errno)})`);
    else log.debug(`gave up the controlling terminal${signalsSelf ? ' (the SIGHUP and SIGCONT this sends sexton are not forwarded)' : ''}`);
  }
  new Supervisor(options, log, native, {
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
      return exitsWithMainChild(process.env);
    },
    execFailure: (command, errno) => ({ message: `${shownWord(command)}: ${native.errorText(errno)}`, exitCode: 2 }),
  }).start();
  process.chdir('/');  // the init keeps no directory busy; the child keeps the caller's
}

/** What a peer says about bad input: tini adds its usage, dumb-init a line or two. */
function usageErrorText(name: 'tini' | 'dumb-init', error: UsageError): string {
  if (name === 'tini') return `${getoptLine(name, error)}\n${TINI_USAGE}\n`;
  if (/^no command given/.test(error.message)) return `${DUMB_INIT_USAGE.split('\n')[0]}\nSee dumb-init --help for the options.\n`;
  return `${getoptLine(name, error)}\n`;
}

/** `early`: what the first handlers found (boot/first-handlers.ts): the addon, or why it failed. */
export function runPersonality(name: string, argv: string[], early: { native?: Native; error?: unknown }): void {
  if (!isPersonality(name)) {
    write(2, `sexton: SEXTON_PERSONALITY=${quote(name)}: expected tini, dumb-init or sexton\n`);
    return process.exit(EXIT.usage);
  }
  try {
    if (early.error) throw early.error;
    disableChildProcess();
    const native = early.native as Native;
    if (name === 'tini') runTini(argv, native);
    else runDumbInit(argv, native);
  } catch (error) {
    if (error instanceof UsageError) {
      write(2, usageErrorText(name, error));
      process.exit(PEER_USAGE_EXIT);
    }
    if (error instanceof AddonLoadError || error instanceof StartError) {
      write(2, `${name}: ${error.message}\n`);
      process.exit(EXIT.startFailure);
    }
    throw error;
  }
}
