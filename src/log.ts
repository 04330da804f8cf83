// Log lines go to stderr, prefixed "sexton:", never to stdout (that belongs to the child).
// fs.writeSync on fd 2 and not process.stderr: touching process.stdout/stderr on a TTY makes
// Node register SIGWINCH and change the terminal's file flags under the child.
import { writeSync } from 'node:fs';

export const QUIET = 0;
export const DEFAULT = 1;
export const VERBOSE = 2;
export const DEBUG = 3;

export type LogFormat = 'text' | 'json';
type Fields = Record<string, unknown>;

const LEVEL_NAMES = ['error', 'warn', 'info', 'debug'];

export class Logger {
  constructor(readonly verbosity: number, readonly format: LogFormat = 'text') {}

  error(message: string, fields?: Fields): void { this.write(QUIET, message, fields); }
  warn(message: string, fields?: Fields): void { this.write(DEFAULT, message, fields); }
  info(message: string, fields?: Fields): void { this.write(VERBOSE, message, fields); }
  debug(message: string, fields?: Fields): void { this.write(DEBUG, message, fields); }

  private write(level: number, message: string, fields?: Fields): void {
    if (level > this.verbosity) return;
    const line = this.format === 'json'
      ? JSON.stringify({ time: new Date().toISOString(), level: LEVEL_NAMES[level], message, ...fields })
      : `sexton: ${message}`;
    try {
      writeSync(2, `${line}\n`);
    } catch {
      // EPIPE or EAGAIN on stderr loses this line; it must never take PID 1 down with it.
    }
  }
}
