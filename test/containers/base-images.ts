// The base images users run, assembled from this machine's Debian packages with nothing pulled,
// and the sexton-volume image (the self-contained tree, FROM scratch) to mount into them at
// /sexton as Kubernetes mounts an image volume (podman's --mount type=image: read-only).
import { execa } from 'execa';
import { chmodSync, copyFileSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ROOT } from '../support/pid1';
import { assembleGlibcRootfs, IMAGES, importRootfs } from './images';
import type { Engine } from './podman';

export const VOLUME_IMAGE = IMAGES.volume;

/** Each base image and what it stands for; every one has the static workload at /app/volume-app. */
export const BASES = {
  scratch: 'localhost/sexton-test/base-scratch',
  'distroless-static': 'localhost/sexton-test/base-distroless-static',
  'distroless-node': 'localhost/sexton-test/base-distroless-node',
  'alpine-musl': 'localhost/sexton-test/base-alpine-musl',
  debian: 'localhost/sexton-test/base-debian',
} as const;
export type Base = keyof typeof BASES;

/** The workload, one static program (test/fixtures/volume-app.c), built with musl. */
async function buildWorkload(out: string): Promise<void> {
  await execa('musl-gcc', ['-static', '-Os', '-s', '-o', out, path.join(ROOT, 'test', 'fixtures', 'volume-app.c')]);
}

function withApp(dir: string, app: string): void {
  mkdirSync(path.join(dir, 'app'), { recursive: true });
  copyFileSync(app, path.join(dir, 'app', 'volume-app'));
  chmodSync(path.join(dir, 'app', 'volume-app'), 0o755);
}

/** distroless's users: root and nonroot (65532), a home, a /tmp; no shell, no libc. */
function withDistrolessFiles(dir: string): void {
  for (const sub of ['etc', 'tmp', 'home/nonroot']) mkdirSync(path.join(dir, sub), { recursive: true });
  chmodSync(path.join(dir, 'tmp'), 0o1777);
  writeFileSync(path.join(dir, 'etc', 'passwd'), 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n');
  writeFileSync(path.join(dir, 'etc', 'group'), 'root:x:0:\nnonroot:x:65532:\n');
}

/** node and the libraries `ldd` names, where gcr.io/distroless/nodejs has them; no shell. */
async function withNodeNoShell(dir: string): Promise<void> {
  const node = realpathSync(process.execPath);
  const { stdout: ldd } = await execa('ldd', [node]);
  for (const lib of ldd.match(/\/\S+/g) ?? []) {
    mkdirSync(path.join(dir, path.dirname(lib)), { recursive: true });
    copyFileSync(realpathSync(lib), path.join(dir, lib));
  }
  mkdirSync(path.join(dir, 'nodejs', 'bin'), { recursive: true });
  copyFileSync(node, path.join(dir, 'nodejs', 'bin', 'node'));
  chmodSync(path.join(dir, 'nodejs', 'bin', 'node'), 0o755);
}

/** Debian's musl as Alpine has it (/lib/ld-musl-*.so.1), and busybox-static as its userland. */
async function withMuslBusybox(dir: string): Promise<void> {
  for (const sub of ['bin', 'lib', 'etc', 'tmp']) mkdirSync(path.join(dir, sub), { recursive: true });
  chmodSync(path.join(dir, 'tmp'), 0o1777);
  const loader = `ld-musl-${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}.so.1`;
  copyFileSync(realpathSync(`/lib/${loader}`), path.join(dir, 'lib', loader));
  copyFileSync('/bin/busybox', path.join(dir, 'bin', 'busybox'));
  chmodSync(path.join(dir, 'bin', 'busybox'), 0o755);
  const { stdout: applets } = await execa('/bin/busybox', ['--list']);
  for (const applet of applets.split('\n').filter((a) => a && a !== 'busybox')) symlinkSync('busybox', path.join(dir, 'bin', applet));
  writeFileSync(path.join(dir, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
  writeFileSync(path.join(dir, 'etc', 'alpine-release'), 'stand-in: Debian musl and busybox-static\n');
}

/** Builds the tree (scripts/sexton-tree.mjs) and imports it as an image FROM scratch. */
export async function importVolumeImage(engine: Engine, scratch: string): Promise<string> {
  const tree = path.join(scratch, 'sexton-tree');
  await execa(process.execPath, [path.join(ROOT, 'scripts', 'sexton-tree.mjs'), tree], { timeout: 120_000 });
  await importRootfs(engine, tree, VOLUME_IMAGE, '/bin/sexton');
  return tree;
}

/** Every base image, imported into the engine's store. */
export async function importBases(engine: Engine, scratch: string): Promise<void> {
  const app = path.join(scratch, 'volume-app');
  await buildWorkload(app);
  const assemble: Record<Base, (dir: string) => Promise<void> | void> = {
    scratch: () => undefined,
    'distroless-static': withDistrolessFiles,
    'distroless-node': async (dir) => {
      withDistrolessFiles(dir);
      await withNodeNoShell(dir);
    },
    'alpine-musl': withMuslBusybox,
    debian: assembleGlibcRootfs,
  };
  for (const [base, image] of Object.entries(BASES) as [Base, string][]) {
    const dir = path.join(scratch, `base-${base}`);
    mkdirSync(dir, { recursive: true });
    await assemble[base](dir);
    withApp(dir, app);
    await importRootfs(engine, dir, image, '/app/volume-app');
  }
}
