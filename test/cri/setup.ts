// Global setup of the CRI tier: its own containerd, the images imported into it, and at the end
// every pod removed through CRI, containerd stopped, its cgroups, mounts and directory gone. A
// machine where containerd cannot start or run a pod fails the tier: never a skip.
import type { TestProject } from 'vitest/node';
import { Containerd, startContainerd, stopContainerd } from './containerd';
import { CRI_IMAGES, importImages } from './images';

declare module 'vitest' {
  export interface ProvidedContext {
    containerd: Omit<Containerd, 'pid'>;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const { containerd, child, client } = await startContainerd(CRI_IMAGES.pause);
  const teardown = async () => {
    const problems = await stopContainerd(containerd, child, client);
    if (problems.length > 0) throw new Error(`CRI tier cleanup:\n${problems.join('\n')}`);
  };
  try {
    const { runtime_version } = await client.version();
    const steps = await importImages(containerd.dir, containerd.socket);
    const images = Object.entries(steps).map(([name, ms]) => `${name} ${(ms / 1000).toFixed(1)} s`).join(', ');
    const tags = await client.listImages();
    for (const image of Object.values(CRI_IMAGES)) {
      if (!tags.includes(image)) throw new Error(`${image} is not in containerd after the import (it has ${tags.join(', ')})`);
    }
    console.log(`cri: containerd ${runtime_version} in ${containerd.dir}; images: ${images}; setup ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    await teardown().catch(() => undefined);
    throw error;
  }
  const { pid: _pid, ...shared } = containerd;
  project.provide('containerd', shared);
  return teardown;
}
