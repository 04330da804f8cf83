// Log lines go to stderr, prefixed "sexton:", never to stdout (that belongs to the child).
// Never through process.stderr: on a TTY that makes Node register SIGWINCH and change the
// terminal's file flags under the child. In the init they go through the addon's sink, which
// never blocks: a line the reader has no room for is dropped and counted, and the count is
// said once the reader takes lines again.
import { writeSync } from 'node:fs';

export const QUIET = 0;
export const DEFAULT = 1;
export const VERBOSE = 2;
export const DEBUG = 3;

export type LogFormat = 'text' | 'json';
type Fields = Record<string, unknown>;

/** Writes text (a line of `level`); returns the bytes written or -errno. */
export type LogSink = (text: string, level: number) => number;

/** What a text line starts with; the tini and dumb-init personalities have their own. */
export type LinePrefix = (level: number) => string;

/** Well below PIPE_BUF even in UTF-8: a line reaches a pipe whole or not at all. */
const MAX_MESSAGE_CHARS = 1000;
/** PIPE_BUF, the most a pipe takes whole. */
const MAX_LINE_BYTES = 4096;
/** Message characters that fit in MAX_LINE_BYTES as JSON whatever they are (\uXXXX: 6 bytes). */
const JSON_SAFE_CHARS = 600;
const LEVEL_NAMES = ['error', 'warn', 'info', 'debug'];

/** A message before the init runs, or a tool's: written if it can be, else there is nowhere to say it. */
export function writeOrDrop(fd: number, text: string): void {
  try {
    writeSync(fd, text);
  } catch {
    // nowhere left to say it
  }
}

/** For tools (status, harness): a plain write that may block, as any CLI's would. */
export const blockingStderr: LogSink = (text) => {
  try {
    return writeSync(2, text);
  } catch (error) {
    return -((error as NodeJS.ErrnoException).errno ?? 1);
  }
};

export class Logger {
  /** Lines dropped since the last one that was written. */
  private unsaid = 0;
  /** Lines dropped in all. */
  droppedLines = 0;
  /** A stream socket took part of the last line: the next one starts on a line of its own. */
  private lineCut = false;

  constructor(
    readonly verbosity: number,
    readonly format: LogFormat = 'text',
    private readonly sink: LogSink = blockingStderr,
    private readonly prefix: LinePrefix = () => 'sexton: ',
  ) {}

  error(message: string, fields?: Fields): void { this.write(QUIET, message, fields); }
  warn(message: string, fields?: Fields): void { this.write(DEFAULT, message, fields); }
  info(message: string, fields?: Fields): void { this.write(VERBOSE, message, fields); }
  debug(message: string, fields?: Fields): void { this.write(DEBUG, message, fields); }

  /**
   * A line to be written later by the addon, when nothing can be formatted (the stop deadline).
   * A JSON line then has no time: it would be the time it was made.
   */
  preformat(level: number, message: string, fields?: Fields): string {
    const line = this.format_(level, message, fields);
    if (this.format === 'text') return line;
    const { time: _, ...rest } = JSON.parse(line) as Record<string, unknown>;
    return `${JSON.stringify(rest)}\n`;
  }

  private write(level: number, message: string, fields?: Fields): void {
    if (level > this.verbosity) return;
    if (this.unsaid > 0) {
      const note = this.format_(DEFAULT, `${this.unsaid} log line(s) dropped: stderr was not taking them`,
        { droppedLines: this.unsaid });
      if (!this.emit(note, DEFAULT)) return;
      this.unsaid = 0;
    }
    this.emit(this.format_(level, message, fields), level);
  }

  private emit(text: string, level: number): boolean {
    const line = this.lineCut ? `\n${text}` : text;
    // A write failure of any kind (EAGAIN, EPIPE) loses the line, never PID 1.
    const written = this.sink(line, level);
    if (written > 0) {
      this.lineCut = written < Buffer.byteLength(line);
      return true;
    }
    this.unsaid++;
    this.droppedLines++;
    return false;
  }

  private format_(level: number, text: string, fields?: Fields): string {
    const message = text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS)}…` : text;
    if (this.format === 'text') return `${this.prefix(level)}${message}\n`;
    const head = { time: new Date().toISOString(), level: LEVEL_NAMES[level], message };
    const line = `${JSON.stringify({ ...head, ...fields })}\n`;
    if (Buffer.byteLength(line) <= MAX_LINE_BYTES) return line;
    // Escapes and fields outgrew a pipe's atomic write: the fields go, and the message is cut to
    // what fits even if every character is a six-byte escape.
    const short = message.length > JSON_SAFE_CHARS ? `${message.slice(0, JSON_SAFE_CHARS)}…` : message;
    return `${JSON.stringify({ ...head, message: short, fieldsDropped: true })}\n`;
  }
}

/**
 * Rate limit for a line that a flood would repeat (a refused client, a failed accept): the first
 * of a kind is told at once, later ones at most once per interval, with how many there were.
 * No timer: a flood's last few are told with the next one, or never.
 */
export class EveryNowAndThen {
  private readonly kinds = new Map<string, { toldAt: number; since: number }>();

  constructor(private readonly intervalMs: number,
    private readonly now = () => Number(process.hrtime.bigint() / 1_000_000n)) {}

  /** undefined: stay quiet; else how many of this kind came since the last line, this one included. */
  tell(kind: string): number | undefined {
    const now = this.now();
    const seen = this.kinds.get(kind);
    if (!seen) {
      this.kinds.set(kind, { toldAt: now, since: 0 });
      return 1;
    }
    seen.since++;
    if (now - seen.toldAt < this.intervalMs) return undefined;
    const count = seen.since;
    seen.toldAt = now;
    seen.since = 0;
    return count;
  }
}
