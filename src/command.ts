// What sexton needs to know about the command before and after it tries to run it.
import { constants } from 'node:os';

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Paths execve should try, in order, as execvp would search them. */
export function commandCandidates(name: string, searchPath = process.env.PATH): string[] {
  if (name.includes('/')) return [name];
  return (searchPath ?? DEFAULT_PATH).split(':').map((dir) => `${dir === '' ? '.' : dir}/${name}`);
}

const errnoNames = new Map<number, string>();
for (const [name, n] of Object.entries(constants.errno)) if (!errnoNames.has(n)) errnoNames.set(n, name);

export function errnoName(errno: number): string {
  return errnoNames.get(errno) ?? `errno ${errno}`;
}

/** The shell's convention: 127 when the command is not there, 126 when it is but cannot run. */
export function execFailure(command: string, errno: number): { exitCode: number; message: string } {
  const e = constants.errno;
  if (errno === e.ENOENT || errno === e.ENOTDIR) {
    return { exitCode: 127, message: `cannot run '${command}': command not found` };
  }
  const why = errno === e.EACCES ? 'permission denied' : errno === e.ENOEXEC ? 'not an executable format' : errnoName(errno);
  return { exitCode: 126, message: `cannot run '${command}': ${why}` };
}
