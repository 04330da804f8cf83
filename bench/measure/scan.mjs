// `sexton scan` on a crowded node: a PID namespace holding PROCESSES processes (ZOMBIES of them
// zombies of its PID 1, which never reaps), scanned from the host through the real /proc. The
// whole command is timed (what an operator waits for, Node's start-up included), along with
// the scan's own durationMs (what a scrape of `--serve` costs), and `ps -e` over the same /proc
// as the reference. The namespace is SIGKILLed by pid when done, taking every process with it.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startPid1 } from '../lib/pid1.mjs';
import { ROOT, SEXTON } from '../lib/setup.mjs';
import { median } from '../lib/stats.mjs';

function compileCrowd(dir) {
  const binary = path.join(dir, 'crowd');
  execFileSync('cc', ['-O2', '-Wall', '-o', binary, path.join(ROOT, 'bench', 'crowd.c')], { stdio: ['ignore', 'ignore', 'inherit'] });
  return binary;
}

function timed(argv) {
  const started = process.hrtime.bigint();
  const result = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 30_000 });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.error) throw result.error;
  return { ms, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export async function measureScan({ processes, zombies, rounds }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'sexton-bench-scan-'));
  const run = await startPid1([compileCrowd(dir), String(processes), String(zombies)], { lines: true });
  try {
    await run.expectLine('ready', 60_000);
    const samples = { wallMs: [], scanMs: [], psMs: [], scanned: [] };
    for (let round = 0; round < rounds; round++) {
      const scan = timed([process.execPath, SEXTON, 'scan', '--json']);
      if (scan.status !== 1) throw new Error(`sexton scan exited ${scan.status}, not 1: ${scan.stderr}`);
      const json = JSON.parse(scan.stdout);
      const crowd = json.groups.find((g) => g.parent.pid === run.pid1);
      if (crowd?.zombies !== zombies || crowd.reason !== 'pid1-does-not-reap') {
        throw new Error(`sexton scan did not report the crowd's ${zombies} zombies: ${JSON.stringify(crowd)}`);
      }
      if (json.scannedProcesses < processes) throw new Error(`scanned ${json.scannedProcesses} processes, fewer than ${processes}`);
      samples.wallMs.push(scan.ms);
      samples.scanMs.push(json.durationMs);
      samples.scanned.push(json.scannedProcesses);
      const ps = timed(['ps', '-e', '-o', 'pid=,ppid=,stat=,comm=']);
      if (ps.status !== 0) throw new Error(`ps exited ${ps.status}: ${ps.stderr}`);
      samples.psMs.push(ps.ms);
    }
    return {
      processes, zombies, rounds,
      scanned: median(samples.scanned),
      wallMs: median(samples.wallMs),
      scanMs: median(samples.scanMs),
      psMs: median(samples.psMs),
    };
  } finally {
    await run.kill();
    rmSync(dir, { recursive: true, force: true });
  }
}
