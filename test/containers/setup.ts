// Global setup of the container suite: bring up podman, import the base images, pack sexton and
// build the images once for every test file. Any failure here fails the whole suite: a machine
// where the engine cannot start is a failure, never a skip.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { TestProject } from 'vitest/node';
import { packTarball } from '../support/shipping';
import { importVolumeImage } from './base-images';
import { addNode, assembleGlibcRootfs, buildImages, IMAGES, importRootfs } from './images';
import { Driver, Engine, engineFor, podman, writeContainersConf } from './podman';

declare module 'vitest' {
  export interface ProvidedContext {
    engine: Engine;
    images: typeof IMAGES;
  }
}

/** Removes what earlier runs left in the suite's own store. */
async function removeLeftovers(engine: Engine): Promise<void> {
  const { stdout } = await podman(engine, ['ps', '--all', '--quiet'], { reject: false });
  for (const id of stdout.split('\n').filter(Boolean)) await podman(engine, ['rm', '-f', '-t', '0', id], { reject: false });
  await podman(engine, ['pod', 'rm', '--all', '--force'], { reject: false });  // kube.test.ts's pods
  // Images that lost their tag to a rebuild: without this the store grows by ~1 GB a run.
  await podman(engine, ['image', 'prune', '--force'], { reject: false, timeoutMs: 120_000 });
}

/**
 * The first storage driver with which runc really runs a container: overlay, else vfs. The
 * probe imports the glibc base image, which the suite needs anyway.
 */
async function startEngine(conf: string, glibcRootfs: string): Promise<Engine> {
  const failures: string[] = [];
  for (const driver of ['overlay', 'vfs'] as Driver[]) {
    const engine = engineFor(conf, driver);
    try {
      await removeLeftovers(engine);
      await importRootfs(engine, glibcRootfs, IMAGES.glibcBase, '/bin/sh');
      const probe = await podman(engine, ['run', '--rm', '--network=none', IMAGES.glibcBase, 'echo', 'engine-ok']);
      if (probe.stdout.trim() !== 'engine-ok') throw new Error(`probe printed '${probe.stdout}'`);
      return engine;
    } catch (error) {
      failures.push(`${driver}: ${(error as Error).message}`);
    }
  }
  throw new Error(`podman cannot run a container on this machine:\n${failures.join('\n')}`);
}

export default async function setup(project: TestProject): Promise<() => void> {
  const started = Date.now();
  const scratch = mkdtempSync(path.join(tmpdir(), 'sexton-containers-'));
  const glibcRootfs = path.join(scratch, 'glibc-rootfs');
  const nodeRootfs = path.join(scratch, 'node-rootfs');
  mkdirSync(glibcRootfs);
  mkdirSync(nodeRootfs);

  await assembleGlibcRootfs(glibcRootfs);
  const engine = await startEngine(await writeContainersConf(scratch), glibcRootfs);
  await assembleGlibcRootfs(nodeRootfs);
  addNode(nodeRootfs);
  await importRootfs(engine, nodeRootfs, IMAGES.nodeBase, 'node');
  const baseMs = Date.now() - started;

  const tarball = await packTarball(scratch);
  await importVolumeImage(engine, scratch);  // images/add-sexton copies its tree
  const buildMs = await buildImages(engine, scratch, tarball);
  const builds = Object.entries(buildMs).map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`).join(', ');
  console.log(
    `containers: ${engine.driver} storage; base images ${(baseMs / 1000).toFixed(1)} s; builds: ${builds}; ` +
      `setup total ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  project.provide('engine', engine);
  project.provide('images', IMAGES);
  return () => rmSync(scratch, { recursive: true, force: true });
}
