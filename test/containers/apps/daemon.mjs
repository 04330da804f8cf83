// A daemonized writer. `node daemon.mjs launch OUT` starts a detached copy of itself (its own
// session, re-parented to PID 1 once the launcher exits) and returns when it is ready. The copy
// needs 0.5 s to flush when asked to stop: on SIGTERM it writes "flushing" to OUT, then
// "complete" half a second later, and exits.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, writeFileSync } from 'node:fs';

const [mode, out] = process.argv.slice(2);
if (mode === 'launch') {
  spawn(process.execPath, [process.argv[1], 'run', out], { detached: true, stdio: 'ignore' }).unref();
  const wait = setInterval(() => existsSync(`${out}.ready`) && clearInterval(wait), 20);
} else {
  process.on('SIGTERM', () => {
    writeFileSync(out, 'flushing\n');
    setTimeout(() => {
      appendFileSync(out, 'complete\n');
      process.exit(0);
    }, 500);
  });
  setInterval(() => {}, 60_000);
  writeFileSync(`${out}.ready`, `${process.pid}\n`);
}
