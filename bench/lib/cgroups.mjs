// Cgroups of the bench's own (cgroup v1 controllers: memory, pids), each removed after use.
// A PID 1 joins one through startPid1's `prefix`.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { sleep } from './pid1.mjs';

const made = new Set();
let count = 0;

/** A new cgroup under `controller`; `join` is a prefix argv that moves a command into it. */
export function makeCgroup(controller, label) {
  const v1 = path.join('/sys/fs/cgroup', controller);
  const root = existsSync(path.join(v1, 'cgroup.procs')) ? v1 : '/sys/fs/cgroup';
  const dir = path.join(root, `sexton-bench-${label}-${process.pid}-${++count}`);
  mkdirSync(dir);
  made.add(dir);
  return {
    dir,
    join: ['/bin/sh', '-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh'],
    read: (file) => readFileSync(path.join(dir, file), 'utf8'),
    /** A memory limit: v1's memory.limit_in_bytes, or v2's memory.max. */
    limitMemory: (bytes) => writeFileSync(path.join(dir, existsSync(path.join(dir, 'memory.max')) ? 'memory.max' : 'memory.limit_in_bytes'),
      String(bytes)),
    /** Waits for the last task to leave (a namespace takes a moment to go), then removes it. */
    async remove() {
      for (let i = 0; i < 200; i++) {
        try {
          rmdirSync(dir);
          made.delete(dir);
          return;
        } catch {
          await sleep(25);
        }
      }
      throw new Error(`cannot remove ${dir}: tasks are still in it`);
    },
  };
}

/** On the way out, whatever is still there (a crash): best effort, its tasks are gone by then. */
process.on('exit', () => {
  for (const dir of made) {
    try {
      rmdirSync(dir);
    } catch {
      // still busy: reported by nobody, but named sexton-bench-* for a human to find
    }
  }
});
