// The npm tarball installs where users install it: a Node image without a compiler, often with
// --ignore-scripts. Then only the prebuilt addon can make sexton run.
import { execa } from 'execa';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildToolsOn, installTarball, makeNoCompilerBin, packTarball, PLATFORMS } from './support/shipping';

let scratch = '';
let tarball = '';
let env: Record<string, string> = {};

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-package-'));
  tarball = await packTarball(scratch);
  const bin = await makeNoCompilerBin(path.join(scratch, 'bin'));
  // Keep HOME: npm's cache and config (the registry) live there.
  env = { PATH: bin, HOME: process.env.HOME ?? '/root', npm_config_update_notifier: 'false' };
}, 240_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Installs the tarball into a new project `name`; by default with the compiler-less PATH only. */
async function installInto(name: string, extra: string[], withEnv = env): Promise<{ app: string; output: string }> {
  const app = path.join(scratch, name);
  return { app, output: await installTarball(tarball, app, extra, withEnv) };
}

async function runSexton(app: string, withEnv = env): Promise<{ stdout: string; exitCode: number | undefined }> {
  const run = await execa('./node_modules/.bin/sexton', ['--', '/bin/echo', 'ok'], {
    cwd: app,
    env: withEnv,
    extendEnv: false,
    timeout: 30_000,
    reject: false,
  });
  return { stdout: run.stdout, exitCode: run.exitCode };
}

describe('npm pack tarball', () => {
  test('holds the bundle and four prebuilt addons (x64 and arm64, glibc and musl), not a local build', async () => {
    const { stdout } = await execa('tar', ['tzf', tarball]);
    const files = stdout.split('\n');
    expect(files).toContain('package/dist/sexton.js');
    const addons = files.filter((f) => f.endsWith('.node')).sort();
    expect(addons).toEqual(PLATFORMS.map(({ arch, libc }) => `package/prebuilds/linux-${arch}/sexton.${libc}.node`).sort());
    expect(files.filter((f) => f.startsWith('package/build/'))).toEqual([]);
  });

  test('the test PATH really has no compiler, make, cmake or python', async () => {
    expect(await buildToolsOn(env.PATH)).toEqual([]);
  });

  test('installs with --ignore-scripts and `sexton -- /bin/echo ok` prints ok', async () => {
    const started = Date.now();
    const { app } = await installInto('ignore-scripts', ['--ignore-scripts']);
    console.log(`npm install --ignore-scripts: ${Date.now() - started} ms`);
    expect(existsSync(path.join(app, 'node_modules', 'sexton', 'build'))).toBe(false);
    expect(await runSexton(app)).toEqual({ stdout: 'ok', exitCode: 0 });
  });

  test('installs with scripts: node-gyp-build takes the prebuild and compiles nothing', async () => {
    const { app, output } = await installInto('with-scripts', ['--foreground-scripts']);
    expect(output).toMatch(/> node-gyp-build/);  // the install script did run
    // A compile would have failed here (no compiler), and would have left build/ behind.
    expect(existsSync(path.join(app, 'node_modules', 'sexton', 'build'))).toBe(false);
    expect(await runSexton(app)).toEqual({ stdout: 'ok', exitCode: 0 });
  });

  test('when no prebuild fits, installing with scripts compiles the addon from source', async () => {
    // node-gyp-build takes LIBC from the environment: a C library that no prebuild is for makes
    // every prebuild a mismatch, as on a platform the package has none for. This install has the
    // machine's full PATH, compiler included.
    const full = { ...(process.env as Record<string, string>), LIBC: 'uclibc' };
    const { app, output } = await installInto('compile-fallback', ['--foreground-scripts'], full);
    expect(output).toMatch(/gyp info ok/);
    expect(existsSync(path.join(app, 'node_modules', 'sexton', 'build', 'Release', 'sexton.node'))).toBe(true);
    expect(await runSexton(app, full)).toEqual({ stdout: 'ok', exitCode: 0 });
  });
});
