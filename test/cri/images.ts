// The CRI tier's images, made with the container suite's own builders in a podman store of the
// run's own (under its cri-<random> directory): the glibc base (an image with no Node), images/node
// with sexton from the `npm pack` tarball, and a pause image of a static binary (no registry to
// pull the kubelet's from). `podman save` hands them to `ctr -n k8s.io images import`.
import { execa } from 'execa';
import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { packTarball } from '../support/shipping';
import { addNode, assembleGlibcRootfs, buildImages, IMAGES, importRootfs } from '../containers/images';
import { BASES, importBases, importVolumeImage, VOLUME_IMAGE } from '../containers/base-images';
import { Engine, podman, writeContainersConf } from '../containers/podman';

export const CRI_IMAGES = {
  glibcBase: `${IMAGES.glibcBase}:latest`,
  node: `${IMAGES.node}:latest`,
  pause: 'localhost/sexton-test/pause:cri',
  /** images/node with STOPSIGNAL SIGQUIT, as an image built FROM nginx or php-fpm has. */
  nodeStopQuit: 'localhost/sexton-test/node-stopsignal-quit:cri',
  /** images/sexton-volume as an image of its own: add-sexton.yaml's init container runs it. */
  volume: `${VOLUME_IMAGE}:latest`,
};

/** images/node again, with the stop signal of nginx's and php-fpm's official images. */
async function stopQuitImage(engine: Engine, scratch: string): Promise<void> {
  const context = path.join(scratch, 'stopsignal-quit');
  mkdirSync(context);
  writeFileSync(path.join(context, 'Dockerfile'), `FROM ${CRI_IMAGES.node}\nSTOPSIGNAL SIGQUIT\n`);
  await podman(engine, ['build', '--pull=never', '--network=none', '--quiet', '-t', CRI_IMAGES.nodeStopQuit, context], { timeoutMs: 120_000 });
}

async function pauseImage(engine: Engine, scratch: string): Promise<void> {
  const rootfs = path.join(scratch, 'pause-rootfs');
  mkdirSync(rootfs);
  await execa('gcc', ['-static', '-Os', '-o', path.join(rootfs, 'pause'), path.join(__dirname, 'pause.c')]);
  const tar = `${rootfs}.tar`;
  await execa('tar', ['-C', rootfs, '-cf', tar, '.']);
  await podman(engine, ['import', '--change', 'ENTRYPOINT ["/pause"]', tar, CRI_IMAGES.pause]);
}

/** Where the unpacked sexton-volume image is, under the run's directory. */
export const volumeDir = (scratch: string) => path.join(scratch, 'sexton-volume');
/** The unpacked sexton-volume image, read-only at /sexton, as the kubelet mounts an image volume. */
export const volumeMount = (scratch: string) => [{ container_path: '/sexton', source: volumeDir(scratch), readonly: true }];

/**
 * The sexton-volume image unpacked, as the kubelet of Kubernetes 1.36 has containerd 2.1 mount an
 * image volume: containerd 1.6 has no image volumes, so the pods mount this read-only at /sexton.
 */
async function unpackVolume(engine: Engine, scratch: string): Promise<void> {
  const dir = volumeDir(scratch);
  mkdirSync(dir);
  const { stdout: id } = await podman(engine, ['create', VOLUME_IMAGE]);
  const tar = `${dir}.tar`;
  await podman(engine, ['export', '-o', tar, id.trim()], { timeoutMs: 120_000 });
  await podman(engine, ['rm', id.trim()]);
  await execa('tar', ['-C', dir, '-xf', tar]);
}

/** Builds the images and imports them into containerd's k8s.io namespace; returns each step's ms. */
export async function importImages(scratch: string, socket: string): Promise<Record<string, number>> {
  const ms: Record<string, number> = {};
  let mark = Date.now();
  const step = (name: string) => {
    ms[name] = Date.now() - mark;
    mark = Date.now();
  };
  const engine: Engine = {
    conf: await writeContainersConf(scratch),
    driver: 'overlay',
    root: path.join(scratch, 'podman', 'root'),
    runroot: path.join(scratch, 'podman', 'run'),
  };
  const glibcRootfs = path.join(scratch, 'glibc-rootfs');
  const nodeRootfs = path.join(scratch, 'node-rootfs');
  mkdirSync(glibcRootfs);
  mkdirSync(nodeRootfs);
  await assembleGlibcRootfs(glibcRootfs);
  await importRootfs(engine, glibcRootfs, IMAGES.glibcBase, '/bin/sh');
  await assembleGlibcRootfs(nodeRootfs);
  addNode(nodeRootfs);
  await importRootfs(engine, nodeRootfs, IMAGES.nodeBase, 'node');
  await pauseImage(engine, scratch);
  await importBases(engine, scratch);
  step('base images');
  await importVolumeImage(engine, scratch);
  await unpackVolume(engine, scratch);
  step('sexton-volume');
  const tarball = await packTarball(scratch);
  step('npm pack');
  await buildImages(engine, scratch, tarball, true);
  await stopQuitImage(engine, scratch);
  step('images/node');
  const archive = path.join(scratch, 'images.tar');
  await podman(engine, ['save', '--multi-image-archive', '--format', 'docker-archive', '-o', archive, ...Object.values(CRI_IMAGES), ...Object.values(BASES)], { timeoutMs: 120_000 });
  step('podman save');
  await execa('ctr', ['--address', socket, '--namespace', 'k8s.io', 'images', 'import', archive], { timeout: 120_000 });
  step('ctr import');
  // podman's store is not needed past this point: its overlay mounts would outlive the run.
  await podman(engine, ['system', 'reset', '--force'], { reject: false, timeoutMs: 60_000 });
  step('podman reset');
  return ms;
}

/** The static tini, for pods that compare sexton with tini as PID 1: mounted, not built in. */
export function tiniStatic(scratch: string): string {
  const dir = path.join(scratch, 'tini');
  mkdirSync(dir, { recursive: true });
  copyFileSync('/usr/bin/tini-static', path.join(dir, 'tini'));
  chmodSync(path.join(dir, 'tini'), 0o755);
  return dir;
}
