// `podman kill -s SIG` signals PID 1 (sexton), which forwards it to the app.
import { afterEach, expect, test } from 'vitest';
import { images, kill, removeAll, start, waitForLog } from './containers';

afterEach(removeAll);

test('USR1, USR2, HUP and WINCH sent with podman kill reach the app', async () => {
  const name = await start(images().node, ['node', '/apps/signals.mjs']);
  await waitForLog(name, 'signals: ready');
  for (const signal of ['USR1', 'USR2', 'HUP', 'WINCH']) {
    await kill(name, signal);
    await waitForLog(name, `signals: got SIG${signal}`, 5_000);
  }
  // sexton itself stayed PID 1 through all of them: SIGUSR1 did not open a Node inspector in it.
  const output = await waitForLog(name, 'signals: got SIGWINCH');
  expect(output).not.toMatch(/Debugger listening/);
});
