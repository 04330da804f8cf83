// An error sexton did not expect, as one line: escaped, with no path of the machine sexton was
// built or installed on (its frames say dist/init.js), and its stack only at -vv, on that line.
import * as path from 'node:path';
import { DEBUG } from '../platform/log';
import { escapeLine } from '../config/quote';

/** The package's root: dist/.. from the bundle. */
const PACKAGE_ROOT = path.resolve(__dirname, '..');
/** Enough for a message and a dozen frames; the logger cuts lines at 1000 characters anyway. */
const MAX_CHARS = 900;

function describe(error: unknown, withStack: boolean): string {
  if (!(error instanceof Error)) return String(error);
  const head = `${error.name}: ${error.message}`;
  if (!withStack || typeof error.stack !== 'string') return head;
  const frames = error.stack.split('\n').map((line) => line.trim()).filter((line) => line.startsWith('at '));
  return frames.length > 0 ? `${head} | ${frames.join(' | ')}` : head;
}

/** `error` as one escaped line; `root` is what to strip from paths (the package's, by default). */
export function internalErrorText(error: unknown, verbosity: number, root = PACKAGE_ROOT): string {
  let text: string;
  try {
    text = describe(error, verbosity >= DEBUG);
  } catch {
    text = 'an error that cannot be described';  // a throwing getter or toString
  }
  const prefix = root.endsWith(path.sep) ? root : `${root}${path.sep}`;
  text = text.split(`file://${prefix}`).join('').split(prefix).join('');
  return escapeLine(text, MAX_CHARS);
}
