// `sexton probe` and `sexton status` are native executables built with the addon (native/tools/):
// an exec probe runs every few seconds in every container, and a Node start costs it ~50 ms of
// CPU and ~40 MiB of memory charged to the container. The `sexton` command's sh line execs them
// without Node; reached through node (`node dist/sexton.js status`), this execs them in place,
// same pid, so signals, stdio and the exit status are theirs.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { PROBE_EXIT, STATUS_EXIT } from '../config/exit-codes';
import { quote } from '../config/quote';
import { loadNative } from '../platform/native';
import { writeOrDrop } from '../platform/log';
import { errnoName } from '../platform/os-constants';

/** Where a native tool is: linked into dist/ at build and install (scripts/link-tools.cjs), else beside the addon. */
export function nativeToolCandidates(word: string, dist = __dirname): string[] {
  const root = path.resolve(dist, '..');
  const file = `sexton-${word}`;
  return [
    path.join(dist, file),
    path.join(root, 'build', 'Release', file),
    path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, file),
  ];
}

export function execNativeTool(word: 'probe' | 'status' | string, argv: string[]): void {
  // The probe failed (timeout(1)'s 125); nobody could be asked.
  const exitCode = word === 'probe' ? PROBE_EXIT.usage : STATUS_EXIT.noAnswer;
  const tool = nativeToolCandidates(word).find((file) => existsSync(file));
  if (tool === undefined) {
    writeOrDrop(2, `sexton ${word}: its native executable sexton-${word} is missing; install sexton again\n`);
    return process.exit(exitCode);
  }
  const env = Object.entries(process.env).map(([name, value]) => `${name}=${value}`);
  const errno = loadNative().execSelf([tool, ...argv], env);
  writeOrDrop(2, `sexton ${word}: cannot run ${quote(tool)}: ${errnoName(errno)}\n`);
  process.exit(exitCode);
}
