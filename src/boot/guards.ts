// What keeps PID 1 safe from its own runtime: no child_process, no fatal exceptions, no
// preloads meant for the app.
import type { Logger } from '../platform/log';
import type { Native } from '../platform/native';
import { errnoName } from '../platform/os-constants';
import { putsCodeInPid1 } from '../config/node-options';
import { ownWords } from '../platform/procfs';
import { internalErrorText } from '../init/internal-error';

/**
 * libuv reaps only the pids it spawned, and sexton's reaper would steal their exit statuses:
 * 'exit' events never fire and spawnSync hangs. Make any use fail loudly instead: requiring it
 * throws, and if a preload loaded it before sexton ran, the two functions every spawn goes
 * through throw, so references it took fail too. (Loading child_process ourselves would cost
 * 2 ms of every start.)
 */
export function disableChildProcess(): void {
  const blocked = (name: string) => () => {
    throw new Error(
      `child_process${name && `.${name}`} is disabled inside the sexton init: its reaper owns every child`);
  };
  const Module = require('node:module') as { _load(request: string, ...rest: unknown[]): unknown };
  const load = Module._load;
  Module._load = function (request: string, ...rest: unknown[]) {
    if (request === 'child_process' || request === 'node:child_process') blocked('')();
    return load.call(this, request, ...rest);
  };
  const loadedModules = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
  if (!loadedModules.includes('NativeModule child_process')) return;
  const childProcess = load('node:child_process') as Record<string, unknown> & {
    ChildProcess: { prototype: { spawn: unknown } } };
  for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
    childProcess[name] = blocked(name);
  }
  childProcess.ChildProcess.prototype.spawn = blocked('spawn');
  const binding = (process as unknown as { binding(name: string): { spawn: unknown } }).binding;
  binding('spawn_sync').spawn = blocked('spawnSync');
}

/** As PID 1, an uncaught exception would take the whole container down: log it (one line) and go on. */
export function keepInitAlive(log: Logger): void {
  const report = (error: unknown) => log.error(
    `internal error (sexton keeps running): ${internalErrorText(error, log.verbosity)}`);
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
}

const APP_NODE_OPTIONS = 'SEXTON_APP_NODE_OPTIONS';

/**
 * NODE_OPTIONS meant for a Node app is read by Node before any JavaScript runs. The `sexton`
 * command's shell line moves it into SEXTON_APP_NODE_OPTIONS first (scripts/bundle.mjs), and this
 * hands it back, unchanged, for the child. Started as `node …/sexton.js`, nothing can act before
 * Node has read it: a missing preload or an unknown flag ends Node before sexton runs, and a
 * preload or inspector has run once in PID 1; then sexton says so in one line and starts itself
 * again without them (same pid). Plain options (--max-old-space-size) cost nothing and stay.
 */
export function shedNodeOptions(log: Logger, native: Native): void {
  const saved = process.env[APP_NODE_OPTIONS];
  if (saved !== undefined) {
    delete process.env[APP_NODE_OPTIONS];
    process.env.NODE_OPTIONS = saved;  // the child's environment is sexton's own
    return;
  }
  const options = process.env.NODE_OPTIONS;
  if (!options) return;
  if (!putsCodeInPid1(options)) {
    log.info("NODE_OPTIONS applies to sexton's own node too (started as `node …/sexton.js`, not by the `sexton` " +
      "command); it holds no preload, so it stays");
    return;
  }
  // The bytes the kernel holds, where /proc has them: Node's decoded copies lose what is not UTF-8.
  const rawEnv = ownWords('environ');
  const env: (string | Buffer)[] = rawEnv
    ? rawEnv.filter((e) => !e.subarray(0, 13).equals(Buffer.from('NODE_OPTIONS=')))
    : Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS').map(
      ([name, value]) => `${name}=${value}`);
  env.push(`${APP_NODE_OPTIONS}=${options}`);
  log.warn("NODE_OPTIONS reached sexton's own node (started as `node …/sexton.js`, not by the `sexton` command): "
    + 'its preloads ran once in PID 1, and sexton starts itself again without them');
  const rawArgv = ownWords('cmdline');
  const argv = rawArgv && rawArgv.length === 1 + process.execArgv.length + process.argv.length - 1
    ? [process.execPath, ...rawArgv.slice(1)]
    : [process.execPath, ...process.execArgv, process.argv[1], ...process.argv.slice(2)];
  const errno = native.execSelf(argv, env);
  log.warn(`NODE_OPTIONS preloads ran inside sexton and could not be shed (execve: ${errnoName(errno)})`);
}
