// The one reader of the kernel's small text files (/proc, cgroupfs) and the scan's, undefined
// where a file cannot be read (gone, not ours, not mounted).
import { readFileSync } from 'node:fs';

/**
 * The file as UTF-8 text. What these files hold is ASCII (numbers, keys, the kernel's words)
 * or paths, which Node's file APIs take as UTF-8 too. 'utf8' is also Node's one-call reader: with
 * 'latin1', Node opens, stats, reads and closes in four calls and copies through a Buffer,
 * 0.45 ms of the seven reads before the spawn (Node 26, measured). Bytes that are not UTF-8 (a
 * process name) come back as U+FFFD, which no caller compares.
 */
export function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
