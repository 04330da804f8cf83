// `sexton probe` and `sexton status` are native executables built with the addon (native/tools/):
// an exec probe runs every few seconds in every container, and a Node start costs it ~50 ms of
// CPU and ~40 MiB of memory charged to the container. The `sexton` command's sh line execs them
// without Node; reached through node (`node dist/sexton.js status`), this execs them in place,
// same pid, so signals, stdio and the exit status are theirs.
import { existsSync } from 'node:fs';
import { PROBE_EXIT, STATUS_EXIT } from '../config/exit-codes';
import { quote } from '../config/quote';
import { loadNative } from '../platform/load-native';
import { writeOrDrop } from '../platform/log';
import { errnoName } from '../platform/os-constants';
import { nativeToolCandidates } from './native-tool-links';


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
