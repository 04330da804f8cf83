// sexton's entry point: a tool, a personality (tini, dumb-init), or the init itself.
import { early } from './first-handlers';  // first: see the file
import { EXIT } from '../config/exit-codes';
import { parseArgs, usage } from '../config/options';
import { quote } from '../config/quote';
import { NATIVE_TOOLS, TOOL_BUNDLES } from '../config/tools';
import { VERSION } from '../config/version';
import { requestedPersonality } from '../personalities/detect';
import { personalityRequest, personalityVoice, type StartRequest } from '../personalities/run';
import { Logger, writeOrDrop } from '../platform/log';
import { execNativeTool } from './native-tool';
import { runInit } from './start-init';

/** A tool with a bundle of its own (src/config/tools.ts): loaded now, its exit status is sexton's. */
function runTool([file, main]: [string, string], argv: string[]): void {
  const tool = require(require('node:path').join(__dirname, file)) as Record<string, (
    argv: string[]) => Promise<number>>;
  tool[main](argv).then((code) => process.exit(code));
}

function sextonRequest(argv: string[]): StartRequest {
  const request = parseArgs(argv, process.env, process.pid === 1);
  if (request.kind === 'help') return { kind: 'print', fd: 1, text: `${usage()}\n` };
  if (request.kind === 'version') return { kind: 'print', fd: 1, text: `sexton ${VERSION}\n` };
  const { options } = request;
  return {
    kind: 'run',
    plan: {
      options,
      logger: (native) => (native.openLogSink(2),
        new Logger(options.verbosity, options.logFormat, (text) => native.writeLog(text))),
    },
  };
}

const SEXTON_VOICE = {
  name: 'sexton',
  usageError: (error: Error) => `sexton: ${error.message}\nTry 'sexton --help' for usage.\n`,
  usageExit: EXIT.usage,
};

export function main(argv: string[]): void {
  const personality = requestedPersonality(process.argv, process.argv0, process.env);  // tini, dumb-init
  if (personality !== undefined) {
    const voice = personalityVoice(personality);
    if (voice === undefined) {
      writeOrDrop(2, `sexton: SEXTON_PERSONALITY=${quote(personality)}: expected tini, dumb-init or sexton\n`);
      return process.exit(EXIT.usage);
    }
    return runInit(early, voice, () => personalityRequest(voice.name, argv, process.env));
  }
  const tool = TOOL_BUNDLES.get(argv[0]);
  if (tool) return runTool(tool, argv.slice(1));
  if (NATIVE_TOOLS.has(argv[0])) return execNativeTool(argv[0], argv.slice(1));
  runInit(early, SEXTON_VOICE, () => sextonRequest(argv));
}
