// An exec probe whose command exits but leaves a child holding its stdout: the runtime waits
// for the output to close, so ExecSync outlives its own timeout (the probe's timeoutSeconds)
// until that child ends. `sexton probe` ends what the command left the moment it exits, the
// output closes, and the call returns at once with the command's own status.
import { afterEach, expect, test } from 'vitest';
import type { ExecResult } from './client';
import { CRI_IMAGES } from './images';
import { cri, Pod, podName } from './pods';

const APP = ['node', '-e', 'setInterval(() => {}, 1000)'];
/** Exits 0 at once; its `sleep` keeps the exec's stdout open for HELD seconds. */
const HELD = 8;
const LEAVES_A_CHILD = ['sh', '-c', `sleep ${HELD} & echo checked`];
const TIMEOUT = 2;

const pods: Pod[] = [];
afterEach(async () => {
  for (const pod of pods.splice(0)) await pod.remove();
});

async function timed(app: string, cmd: string[]): Promise<{ ms: number; result?: ExecResult; error?: string }> {
  const started = Date.now();
  const outcome = await cri().execSync(app, cmd, TIMEOUT).then((result) => ({ result }), (error: unknown) => ({ error: String(error) }));
  return { ms: Date.now() - started, ...outcome };
}

test(`a probe that exits 0 leaving a child on its stdout: through sexton probe ExecSync returns within its ${TIMEOUT} s timeout; run directly it does not`, async () => {
  const pod = await new Pod(podName('held-stdout')).run();
  pods.push(pod);
  const app = await pod.start({ name: 'app', image: CRI_IMAGES.node, command: APP });

  const probed = await timed(app, ['sexton', 'probe', '--', ...LEAVES_A_CHILD]);
  console.log(`held stdout through sexton probe: ExecSync(timeout ${TIMEOUT}) returned in ${probed.ms} ms`);
  expect(probed.result, probed.error).toBeDefined();
  expect(probed.result!.exit_code, probed.result!.stderr).toBe(0);
  expect(probed.result!.stdout).toBe('checked\n');
  expect(probed.ms).toBeLessThan(TIMEOUT * 1000);

  const direct = await timed(app, LEAVES_A_CHILD);
  console.log(`held stdout run directly: ExecSync(timeout ${TIMEOUT}) came back after ${direct.ms} ms: ${JSON.stringify(direct.result ?? direct.error)}`);
  // The call waited on the held output, well past its timeout (until the child ended, or the
  // runtime gave up on it): a kubelet's probe worker waits as long.
  expect(direct.ms).toBeGreaterThan(TIMEOUT * 1000 + 1000);
});
