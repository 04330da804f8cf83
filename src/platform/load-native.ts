// Finds and loads the addon, and checks at the typed boundary what C cannot judge before the
// call reaches it: a notify socket address the user wrote, and the stop deadline, which is set
// once and cannot be taken back. Every other argument is checked in native/arguments.cc.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { libcOf } from './libc';
import { Native, NATIVE_FUNCTIONS, StopDeadline } from './native';

/** sun_path holds 108 bytes, the terminating NUL of a path included. */
const UNIX_PATH_MAX = 107;

/**
 * Throws on a deadline the addon would misread. The one check of the deadline's values: the
 * init builds it unchecked, and the addon keeps only the ranges its own code relies on.
 */
export function checkStopDeadline(d: StopDeadline): StopDeadline {
  const whole = (n: number, min: number, max: number) => Number.isInteger(n) && n >= min && n <= max;
  if (!whole(d.signal, 1, 64)) throw new RangeError(`stop deadline: bad signal ${d.signal}`);
  if (!whole(d.milliseconds, 1, 2 ** 31 - 1)) throw new RangeError(`stop deadline: bad delay ${d.milliseconds} ms`);
  if (!whole(d.exitCode, 0, 255)) throw new RangeError(`stop deadline: bad exit code ${d.exitCode}`);
  if (!whole(d.mainExitAnswerMs, 0, 2 ** 31 - 1)) {
    throw new RangeError(`stop deadline: bad answer time ${d.mainExitAnswerMs} ms`);
  }
  if (!(d.mainExitCodes instanceof Uint8Array) || d.mainExitCodes.length !== 256) {
    throw new RangeError('stop deadline: the main exit codes must be 256 bytes, one per status');
  }
  for (const line of [d.line, d.mainExitTermLine, d.mainExitLine]) {
    const oneLine = line.endsWith('\n') && line.indexOf('\n') === line.length - 1;
    if (!oneLine) throw new RangeError('stop deadline: each line must be one line');
  }
  return d;
}

/**
 * The addon with the two checks above in front of its calls. '@name' (Linux's abstract
 * namespace) becomes the leading NUL the kernel reads.
 */
function withBoundaryChecks(addon: Native): Native {
  const { openNotifySocket, setStopDeadline } = addon;
  return Object.assign({ ...addon }, {
    openNotifySocket(address: string): number {
      if (typeof address !== 'string') throw new TypeError('openNotifySocket: the address must be a string');
      const name = address.startsWith('@') ? `\0${address.slice(1)}` : address;
      if (name.length < 2 || Buffer.byteLength(name) > UNIX_PATH_MAX || name.indexOf('\0', 1) >= 0) {
        throw new TypeError(
          `openNotifySocket: ${JSON.stringify(address)} is not a Unix socket address (1 to ${UNIX_PATH_MAX} bytes, ` +
            `no NUL)`);
      }
      return openNotifySocket.call(addon, name);
    },
    setStopDeadline(...args: Parameters<Native['setStopDeadline']>): void {
      const [signal, milliseconds, exitCode, line, killNamespace, childGroup, walkProc, mainExitAnswerMs,
        mainExitTermLine, mainExitLine, mainExitCodes] = args;
      checkStopDeadline({ signal, milliseconds, exitCode, line, killNamespace, childGroup, walkProc, mainExitAnswerMs,
        mainExitTermLine, mainExitLine, mainExitCodes });
      setStopDeadline.apply(addon, args);
    },
  });
}

/**
 * The addon files to try, in order. node-gyp-build (bundled into dist/sexton.js, so not a
 * runtime dependency) prefers a local build, build/Release (`npm run build`, or a compile at
 * install time), over the prebuilt prebuilds/<platform>-<arch>/sexton.<libc>.node.
 */
function addonCandidates(errors: string[]): string[] {
  // Bundled, this code runs from dist/ (one level below the package root); from source (the
  // tests), from src/platform/ (two levels below).
  const root = path.resolve(__dirname, path.basename(__dirname) === 'dist' ? '..' : '../..');
  // The usual places first, without node-gyp-build's directory walk (a millisecond of every
  // start): a local build, then this platform's prebuild for the C library node runs on.
  const prebuilds = path.join(root, 'prebuilds', `${process.platform}-${process.arch}`);
  const usual = [
    path.join(root, 'build', 'Release', 'sexton.node'),
    path.join(prebuilds, `sexton.${libcOf()}.node`),
  ].filter((file) => existsSync(file));
  if (usual.length > 0) return usual;
  const nodeGypBuild = require('node-gyp-build') as { resolve(root: string): string };
  try {
    return [nodeGypBuild.resolve(root)];
  } catch (error) {
    errors.push((error as Error).message.split('\n')[0]);
    return [];
  }
}

/** The addon is not there or does not load: sexton cannot run at all. */
export class AddonLoadError extends Error {}

let loaded: Native | undefined;

export function loadNative(): Native {
  if (loaded) return loaded;
  const errors: string[] = [];
  for (const candidate of addonCandidates(errors)) {
    try {
      const addon = require(candidate) as Record<string, unknown>;
      // An addon from another build of sexton would fail later, at the first call it lacks.
      const missing = NATIVE_FUNCTIONS.filter((name) => typeof addon[name] !== 'function');
      if (missing.length > 0) throw new Error(
        `it lacks ${missing.join(', ')}: it was built from another version of sexton`);
      loaded = withBoundaryChecks(addon as unknown as Native);
      return loaded;
    } catch (error) {
      errors.push(`${candidate}: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  throw new AddonLoadError(
    "cannot load sexton's native addon: no prebuilt one fits this machine and none was compiled " +
      '(install without --ignore-scripts to compile it, or run "npm run build" in a checkout)\n  ' +
      errors.join('\n  '),
  );
}
