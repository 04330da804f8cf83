// What sexton needs to know about the command before and after it tries to run it.
import { closeSync, openSync, readSync } from 'node:fs';
import { constants, errnoName } from '../platform/os-constants';
import { ownWords } from '../platform/procfs';
import { EXIT } from '../config/exit-codes';
import { quote } from '../config/quote';

const DEFAULT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * The last `count` arguments as the bytes sexton was given. Node decodes argv as UTF-8 and
 * replaces what is not; the child must get the bytes (a file name in Latin-1, say). They are in
 * /proc/self/cmdline; when it cannot be read, the decoded text is all there is.
 */
export function rawArguments(decoded: string[], trustProc: boolean): (string | Buffer)[] {
  if (!trustProc || decoded.every((arg) => !arg.includes('\ufffd'))) return decoded;
  const all = ownWords('cmdline') ?? [];
  const raw = all.slice(all.length - decoded.length);
  // Only if each word decodes to what Node made of it: otherwise this is not our argv.
  return raw.length === decoded.length && raw.every((b, i) => b.toString() === decoded[i]) ? raw : decoded;
}

/** PATH as its bytes: Node decodes the environment as UTF-8 too, and a directory can be Latin-1. */
function searchPathBytes(): string | Buffer | undefined {
  const decoded = process.env.PATH;
  if (decoded === undefined || !decoded.includes('\ufffd')) return decoded;
  const entry = ownWords('environ')?.find((e) => e.subarray(0, 5).toString() === 'PATH=');
  return entry === undefined ? decoded : entry.subarray(5);
}

/** Paths execve should try, in order, as execvp would search them. */
export function commandCandidates(name: string | Buffer,
  searchPath: string | Buffer | undefined = searchPathBytes()): (string | Buffer)[] {
  if (name.includes('/')) return [name];
  const text = searchPath ?? DEFAULT_PATH;
  // latin1 maps each byte to one character and back, so the split keeps the bytes.
  const dirs = (typeof text === 'string' ? text : text.toString('latin1')).split(':').map(
    (dir) => `${dir === '' ? '.' : dir}/`);
  if (typeof name === 'string' && typeof text === 'string') return dirs.map((dir) => `${dir}${name}`);
  const encoding = typeof text === 'string' ? 'utf8' : 'latin1';
  return dirs.map((dir) => Buffer.concat([Buffer.from(dir, encoding), typeof name === 'string' ? Buffer.from(name)
    : name]));
}

/**
 * Why execve said ENOENT for a file that is there: the interpreter its `#!` line names, or the
 * dynamic loader an ELF binary asks for (a binary built for another C library), is missing.
 */
function missingInterpreter(path: string | Buffer): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(256);
    const text = head.subarray(0, readSync(fd, head, 0, head.length, 0)).toString('latin1');
    if (text.startsWith('\x7fELF')) return 'its dynamic loader (built for another C library?) was not found';
    if (!text.startsWith('#!')) return undefined;
    return `its interpreter ${quote(text.slice(2).split('\n')[0].trim().split(/\s+/)[0])} was not found`;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  ENOEXEC: 'not an executable format',
  ELOOP: 'too many levels of symbolic links',
  ETXTBSY: 'the file is open for writing (text file busy)',
  ENAMETOOLONG: 'the file name is too long',
  E2BIG: 'the arguments and environment are too long',
  ENOMEM: 'not enough memory',
  EISDIR: 'it is a directory',
};

/**
 * The shell's convention: 127 when the command is not there, 126 when it is but cannot run.
 * `tried` are the paths execve was given: an ENOENT for a file that exists means its `#!`
 * interpreter is missing, which is not "command not found".
 */
export function execFailure(command: string, errno: number, tried: (string | Buffer)[] = []): {
  exitCode: number; message: string } {
  const e = constants.errno;
  if (errno === e.ENOENT || errno === e.ENOTDIR) {
    for (const path of tried) {
      const why = missingInterpreter(path);
      if (why !== undefined) return { exitCode: EXIT.notFound, message: `cannot run ${quote(command)}: ${why}` };
    }
    return { exitCode: EXIT.notFound, message: `cannot run ${quote(command)}: command not found` };
  }
  const name = errnoName(errno);
  return { exitCode: EXIT.cannotRun, message: `cannot run ${quote(command)}: ${REASONS[name] ?? name}` };
}
