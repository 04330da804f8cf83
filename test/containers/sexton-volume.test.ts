// sexton from the self-contained tree (images/sexton-volume) as PID 1 of the base images users
// run, none of which has to offer sexton anything: scratch with one static program, distroless
// static (no shell, no libc), distroless Node (no shell), Alpine-like musl, and Debian. The tree
// is mounted at /sexton as Kubernetes 1.36 mounts an image volume: podman's image mount,
// read-only (and once as a read-only bind mount of the unpacked tree, its stand-in elsewhere).
import { cpSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, inject, test } from 'vitest';
import { logs, removeAll, start, stop, untilReaped, waitExit, waitForLog } from './containers';
import { Base, BASES, importBases, importVolumeImage, VOLUME_IMAGE } from './base-images';

const scratch = mkdtempSync(path.join(tmpdir(), 'sexton-volume-'));
let tree = '';

beforeAll(async () => {
  tree = await importVolumeImage(inject('engine'), scratch);
  await importBases(inject('engine'), scratch);
}, 240_000);
afterEach(removeAll);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const IMAGE_VOLUME = ['--mount', `type=image,source=${VOLUME_IMAGE},target=/sexton`];
const ENTRYPOINT = '["/sexton/bin/sexton","--"]';

describe.each(Object.keys(BASES) as Base[])('on %s, sexton from the mounted tree', (base) => {
  test('is PID 1, reaps the orphan, forwards TERM and exits with the app', async () => {
    const name = await start(BASES[base], ['/app/volume-app'], { entrypoint: ENTRYPOINT, runFlags: IMAGE_VOLUME });
    await waitForLog(name, 'ready');
    const status = await untilReaped(name, 1, '/sexton/bin/sexton');
    expect(status).toMatchObject({ pid: 1, orphansReaped: 1, zombieCount: 0 });
    await stop(name, 20);
    expect(await waitExit(name)).toBe(0);
    const output = await logs(name);
    expect(output).toContain('got TERM');
    expect(output).toMatch(/exiting with 0: reaped 2 \(1 orphans: volume-app×1\)/);
  });

  test('stops an app that ignores TERM with its grace period: SIGKILL, 137', async () => {
    const name = await start(BASES[base], ['--grace', '1', '/app/volume-app', 'ignore'], { entrypoint: '["/sexton/bin/sexton"]', runFlags: IMAGE_VOLUME });
    await waitForLog(name, 'ready');
    const took = await stop(name, 20);
    expect(await waitExit(name)).toBe(137);
    expect(took).toBeLessThan(10_000);  // sexton's 1 s, not podman's 20
    expect(await logs(name)).toMatch(/grace period 1s/);
  });
});

test('a read-only bind mount of the unpacked tree works the same (the stand-in for an image volume)', async () => {
  const name = await start(BASES.scratch, ['/app/volume-app'], { entrypoint: ENTRYPOINT, volumes: { [tree]: '/sexton:ro' } });
  await waitForLog(name, 'ready');
  expect(await untilReaped(name, 1, '/sexton/bin/sexton')).toMatchObject({ pid: 1, zombieCount: 0 });
  await stop(name, 20);
  expect(await waitExit(name)).toBe(0);
});

test('ENTRYPOINT ["sexton", "--"] in a shell-less Node image; the app\'s NODE_OPTIONS reaches only the app', async () => {
  const code = "console.log('app NODE_OPTIONS=' + process.env.NODE_OPTIONS)";
  const name = await start(BASES['distroless-node'], ['node', '-e', code], {
    entrypoint: '["sexton","--"]',
    runFlags: IMAGE_VOLUME,
    env: { PATH: '/sexton/bin:/nodejs/bin', NODE_OPTIONS: '--require /apps/preload-says-pid.cjs' },
  });
  expect(await waitExit(name)).toBe(0);
  const output = await logs(name);
  expect(output).toContain('app NODE_OPTIONS=--require /apps/preload-says-pid.cjs');
  expect(output).toMatch(/preload ran in pid (?!1\b)\d+/);
  expect(output).not.toMatch(/preload ran in pid 1\b/);
  expect(output).not.toMatch(/NODE_OPTIONS reached sexton/);
});

test('`sexton status` and `sexton probe` from the tree start no node: a copy without bin/node still answers', async () => {
  const copy = path.join(scratch, 'tree-without-node');
  cpSync(tree, copy, { recursive: true, verbatimSymlinks: true, filter: (file) => file !== path.join(tree, 'bin', 'node') });
  const status = await execa(path.join(copy, 'bin', 'sexton'), ['status'], { reject: false, timeout: 10_000 });
  expect([status.exitCode, status.stderr]).toEqual([3, expect.stringMatching(/^sexton status: no sexton is answering/)]);
  const probe = await execa(path.join(copy, 'bin', 'sexton'), ['probe', '--timeout', '3', '--', 'true'], { reject: false, timeout: 10_000 });
  expect(probe.exitCode, probe.stderr).toBe(0);
});

/** Every entry under dir: its path, mode, and a link's target or a file's size. */
function listing(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).sort().map((entry) => {
    const file = path.join(dir, entry);
    const st = lstatSync(file);
    return `${entry} ${st.mode.toString(8)} ${st.isSymbolicLink() ? readlinkSync(file) : st.isFile() ? st.size : ''}`;
  });
}

test('`sexton copy-tree DIR` copies the tree with its modes and links, again over an earlier copy; bad usage is one line', async () => {
  const launcher = path.join(tree, 'bin', 'sexton');
  const into = path.join(scratch, 'copied');
  mkdirSync(into);
  for (const round of [1, 2]) {
    const copied = await execa(launcher, ['copy-tree', into], { reject: false, timeout: 30_000 });
    expect([round, copied.exitCode, copied.stderr]).toEqual([round, 0, '']);
  }
  expect(listing(into)).toEqual(listing(tree));
  const usage = await execa(launcher, ['copy-tree'], { reject: false });
  expect([usage.exitCode, usage.stderr]).toEqual([2, 'sexton: copy-tree takes one argument, an absolute directory: sexton copy-tree DIR']);
  const missing = await execa(launcher, ['copy-tree', '/nonexistent/\nx'], { reject: false });
  expect([missing.exitCode, missing.stderr]).toEqual([1, "sexton: copy-tree: '/nonexistent/\\x0ax': No such file or directory"]);
});
