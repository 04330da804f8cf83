// Log lines go to stderr, prefixed "sexton:", never to stdout (that belongs to the child).
// fs.writeSync on fd 2 and not process.stderr: touching process.stdout/stderr on a TTY makes
// Node register SIGWINCH and change the terminal's file flags under the child.
import { writeSync } from 'node:fs';

export const QUIET = 0;
export const DEFAULT = 1;
export const VERBOSE = 2;
export const DEBUG = 3;

export class Logger {
  constructor(readonly verbosity: number) {}

  error(message: string): void { this.write(QUIET, message); }
  warn(message: string): void { this.write(DEFAULT, message); }
  info(message: string): void { this.write(VERBOSE, message); }
  debug(message: string): void { this.write(DEBUG, message); }

  private write(level: number, message: string): void {
    if (level > this.verbosity) return;
    try {
      writeSync(2, `sexton: ${message}\n`);
    } catch {
      // EPIPE or EAGAIN on stderr loses this line; it must never take PID 1 down with it.
    }
  }
}
