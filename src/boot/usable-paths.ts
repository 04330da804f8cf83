// The paths the user gave sexton (the status socket, the stats file), checked before the child
// runs: one that can never work is refused in one line, with exit 2, instead of failing after
// the spawn, where the init may no longer bail and could only log it.
import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';
import { quote } from '../config/quote';
import { UsageError } from '../config/options';
import type { Options } from '../config/options';

/** sockaddr_un's sun_path is 108 bytes: 107 of path and its NUL (an abstract name: NUL, then 107). */
export const SOCKET_PATH_MAX = 107;
/** A name in a directory (NAME_MAX), and a whole path (PATH_MAX less its NUL). */
const NAME_MAX = 255;
const PATH_MAX = 4095;
/** What the stats file adds to its name for the copy it renames into place: `.PID.tmp`. */
const STATS_TEMP_SUFFIX = '.4194304.tmp';

/** Why a socket address cannot be bound, from its text alone; undefined when it can. */
export function socketPathProblem(text: string): string | undefined {
  if (text.includes('\0')) return 'it holds a NUL byte';
  const bytes = Buffer.byteLength(text.startsWith('@') ? text.slice(1) : text);
  if (bytes > SOCKET_PATH_MAX) return `${bytes} bytes long; a unix socket's path holds at most ${SOCKET_PATH_MAX}`;
  if (bytes === 0) return 'it is empty';
  return undefined;
}

/** Why a file cannot be made at `file` (with `suffix` for a temporary copy), from its text alone. */
export function filePathProblem(file: string, suffix = ''): string | undefined {
  if (file.includes('\0')) return 'it holds a NUL byte';
  if (file === '' || file.endsWith('/')) return 'it names no file';
  const name = Buffer.byteLength(path.basename(file) + suffix);
  if (name > NAME_MAX) {
    return `its name is ${name} bytes long with sexton's temporary suffix; a name holds at most ${NAME_MAX}`;
  }
  const whole = Buffer.byteLength(file + suffix);
  if (whole > PATH_MAX) return `${whole} bytes long; a path holds at most ${PATH_MAX}`;
  return undefined;
}

/** The file system's answer: throws as accessSync and statSync do (a seam for unit tests). */
export interface Look {
  writable(dir: string): void;
  isDirectory(file: string): boolean | undefined;
}

const FILESYSTEM: Look = {
  writable: (dir) => accessSync(dir, constants.W_OK | constants.X_OK),
  isDirectory: (file) => statSync(file, { throwIfNoEntry: false })?.isDirectory(),
};

const REASONS: Record<string, string> = {
  ENOENT: 'does not exist',
  ENOTDIR: 'is not a directory',
  EROFS: 'is on a read-only file system',
  EACCES: `is not writable by uid ${process.getuid?.() ?? '?'}`,
  EPERM: `is not writable by uid ${process.getuid?.() ?? '?'}`,
};

/** Why no file can be created at `file`'s place in its directory; undefined when one can. */
export function directoryProblem(file: string, look: Look = FILESYSTEM): string | undefined {
  const dir = path.dirname(file);
  if (look.isDirectory(file)) return 'it is a directory';
  try {
    look.writable(dir);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'an error';
    return `its directory ${quote(dir)} ${REASONS[code] ?? `cannot be written (${code})`}`;
  }
}

/** Throws a UsageError naming the first path option that cannot work. */
export function checkUsablePaths(options: Pick<Options, 'statusSocket' | 'statsFile'>, look: Look = FILESYSTEM): void {
  for (const socket of options.statusSocket) {
    const why = socketPathProblem(socket) ?? (socket.startsWith('@') ? undefined : directoryProblem(socket, look));
    if (why) throw new UsageError(`status-socket ${quote(socket)}: ${why} (--status-socket none turns it off)`);
  }
  const stats = options.statsFile;
  if (stats === undefined) return;
  const why = filePathProblem(stats, STATS_TEMP_SUFFIX) ?? directoryProblem(stats, look);
  if (why) throw new UsageError(`stats-file ${quote(stats)}: ${why}`);
}
