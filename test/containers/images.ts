// Builds the suite's images with no registry: base images imported from root filesystems
// assembled from this machine (busybox-static for the userland, the host's node and the
// libraries `ldd` names), then the images of images/ and Dockerfile.examples built on them
// exactly as a user would, with sexton installed from the `npm pack` tarball.
import { execa } from 'execa';
import { chmodSync, copyFileSync, cpSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../support/pid1';
import { Engine, podman } from './podman';

export const IMAGES = {
  /** Stand-in for an existing non-Node image (debian-slim-like): glibc, libstdc++, busybox. */
  glibcBase: 'localhost/sexton-test/glibc-base',
  /** Stand-in for node:26-slim: the above plus node and npm in /usr/local. */
  nodeBase: 'localhost/sexton-test/node-base',
  /** images/node on nodeBase. */
  node: 'localhost/sexton-test/node',
  /** images/add-sexton with APP_IMAGE=glibcBase, from `volume`. */
  added: 'localhost/sexton-test/added',
  /** images/sexton-volume: the self-contained tree, FROM scratch (base-images.ts imports it). */
  volume: 'localhost/sexton-test/sexton-volume',
  /** Dockerfile.examples targets on `node`. */
  nodeApp: 'localhost/sexton-test/example-node-app',
  shellApp: 'localhost/sexton-test/example-shell-app',
  kubernetesApp: 'localhost/sexton-test/example-node-app-kubernetes',
};

const BUSYBOX = '/bin/busybox';

/** A root filesystem with busybox as /bin/* and the shared libraries node needs. */
export async function assembleGlibcRootfs(dir: string): Promise<void> {
  for (const sub of ['bin', 'usr/bin', 'usr/local/bin', 'etc', 'root', 'tmp', 'proc', 'sys', 'dev', 'data']) {
    mkdirSync(path.join(dir, sub), { recursive: true });
  }
  chmodSync(path.join(dir, 'tmp'), 0o1777);
  copyFileSync(BUSYBOX, path.join(dir, 'bin', 'busybox'));
  chmodSync(path.join(dir, 'bin', 'busybox'), 0o755);
  const { stdout: applets } = await execa(BUSYBOX, ['--list']);
  for (const applet of applets.split('\n').filter((a) => a && a !== 'busybox')) {
    symlinkSync('busybox', path.join(dir, 'bin', applet));
  }
  symlinkSync('../../bin/busybox', path.join(dir, 'usr', 'bin', 'env'));  // for #!/usr/bin/env node
  const { stdout: ldd } = await execa('ldd', [realpathSync(process.execPath)]);
  for (const lib of ldd.match(/\/\S+/g) ?? []) {
    mkdirSync(path.join(dir, path.dirname(lib)), { recursive: true });
    copyFileSync(lib, path.join(dir, lib));
  }
  writeFileSync(path.join(dir, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  writeFileSync(path.join(dir, 'etc', 'group'), 'root:x:0:\n');
}

/** Adds node and npm where the official node images have them. */
export function addNode(dir: string): void {
  copyFileSync(realpathSync(process.execPath), path.join(dir, 'usr', 'local', 'bin', 'node'));
  chmodSync(path.join(dir, 'usr', 'local', 'bin', 'node'), 0o755);
  const npmCli = realpathSync(findOnPath('npm'));  // .../node_modules/npm/bin/npm-cli.js
  const npmDir = path.resolve(path.dirname(npmCli), '..');
  cpSync(npmDir, path.join(dir, 'usr', 'local', 'lib', 'node_modules', 'npm'), { recursive: true });
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(dir, 'usr', 'local', 'bin', 'npm'));
}

function findOnPath(command: string): string {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    try {
      return realpathSync(path.join(dir, command));
    } catch {
      // not here
    }
  }
  throw new Error(`${command} is not on PATH`);
}

export async function importRootfs(engine: Engine, dir: string, image: string, cmd: string): Promise<void> {
  const tar = `${dir}.tar`;
  await execa('tar', ['-C', dir, '-cf', tar, '.']);
  await podman(engine, [
    'import',
    '--change', 'ENV PATH=/usr/local/bin:/usr/bin:/bin',
    '--change', `CMD ${JSON.stringify([cmd])}`,
    tar,
    image,
  ], { timeoutMs: 120_000 });
}

async function build(engine: Engine, context: string, dockerfile: string, image: string, args: Record<string, string>, target?: string): Promise<number> {
  const buildArgs = Object.entries(args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]);
  const result = await podman(engine, [
    // --no-cache: podman's layer cache does not look at the tarball the RUN step installs.
    'build', '--pull=never', '--network=none', '--no-cache', '--quiet',
    ...buildArgs,
    ...(target ? ['--target', target] : []),
    '-f', dockerfile, '-t', image, context,
  ], { timeoutMs: 180_000 });
  return result.durationMs;
}

/**
 * Builds every image of images/ and Dockerfile.examples from the base images (or only `images/node`
 * when `nodeOnly`: the CRI tier's need), in a build context holding the tarball (and the example
 * apps at the paths Dockerfile.examples uses). Returns how long each build took, in ms.
 */
export async function buildImages(engine: Engine, scratch: string, tarball: string, nodeOnly = false): Promise<Record<string, number>> {
  const context = path.join(scratch, 'context');
  mkdirSync(context, { recursive: true });
  copyFileSync(tarball, path.join(context, path.basename(tarball)));
  cpSync(path.join(ROOT, 'images', 'examples'), path.join(context, 'images', 'examples'), { recursive: true });
  const sexton = `./${path.basename(tarball)}`;
  const ms: Record<string, number> = {};
  ms.node = await build(engine, context, path.join(ROOT, 'images', 'node', 'Dockerfile'), IMAGES.node, {
    BASE: IMAGES.nodeBase,
    SEXTON: sexton,
  });
  if (nodeOnly) return ms;
  ms.added = await build(engine, context, path.join(ROOT, 'images', 'add-sexton', 'Dockerfile'), IMAGES.added, {
    SEXTON_VOLUME_IMAGE: IMAGES.volume,
    APP_IMAGE: IMAGES.glibcBase,
  });
  const examples = path.join(ROOT, 'Dockerfile.examples');
  const targets: [string, string][] = [['node-app', IMAGES.nodeApp], ['shell-app', IMAGES.shellApp], ['node-app-kubernetes', IMAGES.kubernetesApp]];
  for (const [target, image] of targets) {
    ms[target] = await build(engine, context, examples, image, { SEXTON_BASE: IMAGES.node }, target);
  }
  return ms;
}
