// The kubelet's stop path through CRI: StopContainer (TERM, then the runtime's SIGKILL at the
// timeout) until the call returns with the container exited, with sexton and with tini-static
// as PID 1 of the same image, in interleaved rounds. The app is `sleep` (ends on TERM at once):
// what is measured is the init's part of the stop plus containerd's and runc's, which are the
// same for both. Writes bench/RESULTS-cri.md (BENCH_NO_WRITE=1: print only).
//   npm run bench:cri                 BENCH_CRI_ROUNDS=N (default 15)
import { writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, expect, inject, test } from 'vitest';
import { ROOT, sleep } from '../../test/support/pid1';
import { CRI_IMAGES, tiniStatic } from '../../test/cri/images';
import { cri, exited, Pod, podName } from '../../test/cri/pods';

const ROUNDS = Number(process.env.BENCH_CRI_ROUNDS || 15);
/** After the app's `ready`: sexton finishes its start-up work (exporters, page release) in ~100 ms. */
const SETTLE_MS = 300;
const TIMEOUT_S = 10;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const pods: Pod[] = [];
afterAll(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

async function stopOnce(pod: Pod, init: 'sexton' | 'tini', attempt: number, tini: string): Promise<{ callMs: number; exitMs: number; code: number }> {
  // `ready` comes from the app, so the init has spawned it and handles TERM: before that, a TERM
  // to a PID 1 without a handler is dropped (the start-up window) and the stop takes the timeout.
  const app = ['sh', '-c', 'echo ready; exec sleep 1000'];
  const spec = init === 'sexton'
    ? { name: init, image: CRI_IMAGES.node, args: app, attempt }
    : { name: init, image: CRI_IMAGES.node, command: ['/tini/tini', '--'], args: app, attempt, mounts: [{ container_path: '/tini', source: tini, readonly: true }] };
  const id = await pod.start(spec);
  for (const deadline = Date.now() + 20_000; !pod.log(init, attempt).includes('ready');) {
    if (Date.now() > deadline) throw new Error(`${init}'s app never started: ${pod.log(init, attempt)}`);
    await sleep(20);
  }
  await sleep(SETTLE_MS);
  const sentNs = BigInt(Date.now()) * 1_000_000n;
  const started = performance.now();
  await cri().stopContainer(id, TIMEOUT_S);
  const callMs = performance.now() - started;
  const status = await exited(id);
  await cri().removeContainer(id);
  return { callMs, exitMs: Number(BigInt(status.finished_at) - sentNs) / 1e6, code: status.exit_code };
}

test(`StopContainer → exit, sexton against tini-static as PID 1, ${ROUNDS} interleaved rounds`, async () => {
  const tini = tiniStatic(inject('containerd').dir);
  const pod = await new Pod(podName('bench-stop')).run();
  pods.push(pod);
  const results = { sexton: [] as { callMs: number; exitMs: number }[], tini: [] as { callMs: number; exitMs: number }[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const init of round % 2 ? (['tini', 'sexton'] as const) : (['sexton', 'tini'] as const)) {
      const r = await stopOnce(pod, init, round, tini);
      expect(r.code, `${init} round ${round}`).toBe(143);
      results[init].push(r);
    }
  }
  const row = (init: 'sexton' | 'tini') => {
    const call = median(results[init].map((r) => r.callMs));
    const exit = median(results[init].map((r) => r.exitMs));
    return { call, exit, text: `| ${init} | ${call.toFixed(1)} | ${exit.toFixed(1)} | ${Math.min(...results[init].map((r) => r.callMs)).toFixed(1)} | ${Math.max(...results[init].map((r) => r.callMs)).toFixed(1)} |` };
  };
  const s = row('sexton');
  const t = row('tini');
  const report = [
    '# sexton bench: the CRI stop path',
    '',
    `containerd's CRI (\`npm run bench:cri\`), ${ROUNDS} interleaved rounds per init, ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)} at the end, ${new Date().toISOString().slice(0, 16)}Z.`,
    `StopContainer(timeout ${TIMEOUT_S}) on a container whose app is \`sleep\` (ends on TERM), ${SETTLE_MS} ms after it said it was ready; "call" is until the call returns, "exit" until the finished_at that ContainerStatus reports.`,
    '',
    '| PID 1 | call median ms | exit median ms | call min ms | call max ms |',
    '| --- | --- | --- | --- | --- |',
    s.text,
    t.text,
    '',
    `**StopContainer → exit, sexton / tini-static: ${(s.call / t.call).toFixed(2)}x (call), ${(s.exit / t.exit).toFixed(2)}x (finished_at)**`,
    '',
  ].join('\n');
  console.log(report);
  if (!process.env.BENCH_NO_WRITE) writeFileSync(path.join(ROOT, 'bench', 'RESULTS-cri.md'), report);
});
