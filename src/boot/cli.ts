// sexton's entry point: guard PID 1, parse the command line, hand over to the supervisor.
import { early } from './first-handlers';  // first: see the file
import { writeSync } from 'node:fs';
import { checkDescriptorRoom, descriptorsNeeded } from '../init/descriptors';
import { disableChildProcess, keepInitAlive, shedNodeOptions } from '../init/guards';
import { Logger } from '../platform/log';
import { AddonLoadError, Native, StartError } from '../platform/native';
import { EXIT } from '../config/exit-codes';
import { parseArgs, usage, UsageError } from '../config/options';
import { requestedPersonality } from '../personalities/detect';
import { runPersonality } from '../personalities/run';
import { statusMain } from '../report/status-client';
import { Supervisor } from '../init/supervisor';
import { TOOL_BUNDLES } from '../config/tools';

declare const SEXTON_VERSION: string;

function write(fd: number, text: string): void {
  try {
    writeSync(fd, text);
  } catch {
    // nowhere left to say it
  }
}

/** A tool with a bundle of its own (src/config/tools.ts): loaded now, its exit status is sexton's. */
function runTool([file, main]: [string, string], argv: string[]): void {
  const tool = require(require('node:path').join(__dirname, file)) as Record<string, (argv: string[]) => Promise<number>>;
  tool[main](argv).then((code) => process.exit(code));
}

function runInit(argv: string[]): void {
  if (early.error) throw early.error;
  const native = early.native as Native;
  disableChildProcess();
  const request = parseArgs(argv, process.env, process.pid === 1);
  if (request.kind === 'help') return write(1, `${usage()}\n`);
  if (request.kind === 'version') return write(1, `sexton ${SEXTON_VERSION}\n`);
  checkDescriptorRoom(descriptorsNeeded(request.options));
  native.openLogSink(2);
  const log = new Logger(request.options.verbosity, request.options.logFormat, (text) => native.writeLog(text));
  keepInitAlive(log);
  shedNodeOptions(log, native);
  new Supervisor(request.options, log, native).start();
}

export function main(argv: string[]): void {
  const personality = requestedPersonality(process.argv, process.argv0, process.env);  // tini, dumb-init
  if (personality !== undefined) return runPersonality(personality, argv, early);
  const tool = TOOL_BUNDLES.get(argv[0]);
  if (tool) return runTool(tool, argv.slice(1));
  if (argv[0] === 'status') {
    statusMain(argv.slice(1), process.env).then((code) => process.exit(code));
    return;
  }
  try {
    runInit(argv);
  } catch (error) {
    // Nothing runs yet, so a clean message and a documented status, never a stack trace.
    if (error instanceof UsageError) {
      write(2, `sexton: ${error.message}\nTry 'sexton --help' for usage.\n`);
      process.exit(EXIT.usage);
    }
    if (error instanceof AddonLoadError || error instanceof StartError) {
      write(2, `sexton: ${error.message}\n`);
      process.exit(EXIT.startFailure);
    }
    throw error;
  }
}
