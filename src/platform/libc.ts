// Which C library node runs on, so that src/platform/load-native.ts loads the matching prebuilt addon.
import { closeSync, openSync, readSync } from 'node:fs';

/**
 * 'musl' or 'glibc': the dynamic loader an executable (by default node itself) was linked to
 * run with, read from the interpreter path (PT_INTERP) in the first bytes of its ELF file.
 * musl's loader would also load the glibc addon (it takes libc.so.6 as itself) and run it with
 * glibc's structure layouts, so the choice cannot be left to trying.
 */
export function libcOf(executable = '/proc/self/exe'): 'musl' | 'glibc' {
  if (executable === '/proc/self/exe') return (own ??= readLibc(executable));
  return readLibc(executable);
}

/** node's own, read once: the addon's choice and the signal range both ask. */
let own: 'musl' | 'glibc' | undefined;

function readLibc(executable: string): 'musl' | 'glibc' {
  const head = Buffer.alloc(4096);
  try {
    const fd = openSync(executable, 'r');
    try {
      readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch {
    return 'glibc';
  }
  return head.includes('/ld-musl-') ? 'musl' : 'glibc';
}
