// The npm tarball installs where users install it: a Node image without a compiler, often with
// --ignore-scripts. Then only the prebuilt addon can make sexton run.
import { execa } from 'execa';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT } from '../support/pid1';
import { buildToolsOn, installTarball, makeNoCompilerBin, packTarball, PLATFORMS } from '../support/shipping';

let scratch = '';
let tarball = '';
let env: Record<string, string> = {};
/** Top-level entries of the checkout before and after `npm pack`. */
let before: string[] = [];
let after: string[] = [];

beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-package-'));
  before = readdirSync(ROOT);
  // A nodedir that does not exist: packing must not build against this machine's Node headers.
  tarball = await packTarball(scratch, { npm_config_nodedir: path.join(scratch, 'no-node-headers') });
  after = readdirSync(ROOT);
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
    // The init it runs, the V8 code cache the build trained on it (src/boot/loader.ts), and what
    // trains one for the installing node.
    expect(files).toEqual(expect.arrayContaining(['package/dist/init.js', 'package/dist/init.cache', 'package/dist/code-cache.js', 'package/scripts/install.cjs']));
    const addons = files.filter((f) => f.endsWith('.node')).sort();
    expect(addons).toEqual(PLATFORMS.map(({ arch, libc }) => `package/prebuilds/linux-${arch}/sexton.${libc}.node`).sort());
    expect(files.filter((f) => f.startsWith('package/build/'))).toEqual([]);
  });

  test('npm pack writes nothing into the checkout but prebuilds/', () => {
    expect(after.filter((name) => !before.includes(name) && name !== 'prebuilds')).toEqual([]);
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
    // ... and trained the code cache with the installing node (src/boot/code-cache-train.ts).
    expect(output).toMatch(/sexton code-cache: saved \S+init\.cache for node /);
    const head = readFileSync(path.join(app, 'node_modules', 'sexton', 'dist', 'init.cache'), 'latin1').split('\n')[1];
    expect(head).toMatch(new RegExp(`^// node ${process.version} ${process.arch} \\d+$`));
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

describe('the installed package as a library and as a licensed work', () => {
  let app = '';
  let installed = '';
  beforeAll(async () => {
    ({ app } = await installInto('library', ['--ignore-scripts']));
    installed = path.join(app, 'node_modules', 'sexton');
  }, 240_000);
  const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };

  /** Runs node code in the app; the timer proves the process was still alive after the load. */
  const nodeIn = (args: string[]) =>
    execa('node', args, { cwd: app, env, extendEnv: false, timeout: 30_000, reject: false });

  test("require('sexton') gives the version and the harness, and the caller keeps running", async () => {
    const code = "const s = require('sexton'); setTimeout(() => console.log(s.version, typeof s.runAsPid1, 'still running'), 100);";
    const { exitCode, stdout, stderr } = await nodeIn(['-e', code]);
    expect({ exitCode, stdout, stderr }).toEqual({ exitCode: 0, stdout: `${version} function still running`, stderr: '' });
  });

  test("import 'sexton' and 'sexton/harness' from ESM do the same", async () => {
    const code =
      "import { version, assertNoZombieLeak } from 'sexton'; import { runAsPid1 } from 'sexton/harness';" +
      "setTimeout(() => console.log(version, typeof assertNoZombieLeak, typeof runAsPid1, 'still running'), 100);";
    const { exitCode, stdout, stderr } = await nodeIn(['--input-type=module', '-e', code]);
    expect({ exitCode, stdout, stderr }).toEqual({ exitCode: 0, stdout: `${version} function function still running`, stderr: '' });
  });

  test("TypeScript finds the types of 'sexton' and 'sexton/harness' with the old node resolution and with nodenext", async () => {
    const file = path.join(app, 'uses-sexton.ts');
    const source = "import { version } from 'sexton';\nimport { runAsPid1 } from 'sexton/harness';\nexport const both: [string, typeof runAsPid1] = [version, runAsPid1];\n";
    writeFileSync(file, source);
    const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const types = ['--types', 'node', '--typeRoots', path.join(ROOT, 'node_modules', '@types')];
    for (const [module, resolution] of [['commonjs', 'node'], ['nodenext', 'nodenext']]) {
      const flags = ['--noEmit', '--strict', '--skipLibCheck', '--target', 'es2022', '--module', module, '--moduleResolution', resolution];
      const result = await execa(process.execPath, [tsc, ...flags, ...types, file], { cwd: app, reject: false, timeout: 60_000 });
      expect(result.stdout, `--moduleResolution ${resolution}`).toBe('');
      expect(result.exitCode).toBe(0);
    }
  });

  test('LICENSE is packed, and dist/THIRD-PARTY-NOTICES.md has a licence text for every package bundled into dist/', () => {
    expect(readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} the sexton authors\n/);
    const notices = readFileSync(path.join(installed, 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8');
    // esbuild heads each bundled module with a comment naming its file: the packages, found
    // independently of the script that wrote the notices.
    const bundled = new Set<string>();
    for (const bundle of readdirSync(path.join(installed, 'dist')).filter((f) => f.endsWith('.js'))) {
      const text = readFileSync(path.join(installed, 'dist', bundle), 'utf8');
      for (const [, dir] of text.matchAll(/^\/\/ (\S*node_modules\/(?:@[^/\s]+\/)?[^/\s]+)\//gm)) {
        const innermost = dir.slice(dir.lastIndexOf('node_modules/'));
        const outer = dir.slice(0, dir.lastIndexOf('node_modules/'));
        const { name, version: v } = JSON.parse(readFileSync(path.join(ROOT, outer, innermost, 'package.json'), 'utf8')) as { name: string; version: string };
        bundled.add(`${name}@${v}`);
      }
    }
    expect(bundled.size, 'the harness bundles execa and its dependencies').toBeGreaterThan(15);
    const sections = new Map([...notices.matchAll(/^## (\S+) \(([^)]+)\)\n\n```\n([\s\S]*?)\n```/gm)].map((m) => [m[1], m[3]]));
    // A licence text is a few hundred characters at least; a heading alone does not count.
    const withoutText = [...bundled].filter((pkg) => (sections.get(pkg)?.trim().length ?? 0) < 200);
    expect(withoutText).toEqual([]);
    expect([...sections.keys()].filter((pkg) => !bundled.has(pkg)), 'notices for packages not bundled').toEqual([]);
  });
});
