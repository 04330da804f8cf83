// Where the native `sexton probe` and `sexton status` are (native/tools/), and their links in
// dist/ beside the `sexton` command, whose sh line execs them without Node. `sexton code-cache`
// makes the links: it runs at install, after every build, and in the Dockerfiles that install
// with --ignore-scripts. A tool with no file is left unlinked, and Node then says so in one line.
import { existsSync, rmSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';

const WORDS = ['probe', 'status'];

/** The local build's, then this machine's prebuild (linked statically: any C library). */
function builtTool(root: string, file: string): string | undefined {
  return [path.join('build', 'Release', file), path.join('prebuilds', `${process.platform}-${process.arch}`, file)]
    .find((candidate) => existsSync(path.join(root, candidate)));
}

/** Where a native tool may be: its link in dist/, else where the build or the prebuild put it. */
export function nativeToolCandidates(word: string, dist = __dirname): string[] {
  const root = path.resolve(dist, '..');
  const file = `sexton-${word}`;
  const built = builtTool(root, file);
  return [path.join(dist, file), ...(built ? [path.join(root, built)] : [])];
}

/** Links dist/sexton-<word> to the tool; the errors met, one line each (a read-only install keeps Node's path). */
export function linkNativeTools(dist = __dirname): string[] {
  const root = path.resolve(dist, '..');
  const errors: string[] = [];
  for (const word of WORDS) {
    const file = `sexton-${word}`;
    const built = builtTool(root, file);
    try {
      rmSync(path.join(dist, file), { force: true });
      if (built) symlinkSync(path.join('..', built), path.join(dist, file));
    } catch (error) {
      errors.push(`cannot link ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  return errors;
}
