// Runs podman the way these machines need it (docs/architecture.md, "Testing"): runc, cgroupfs, file
// events and ulimits within the hard limits, all from a project-local containers.conf passed
// with CONTAINERS_CONF; storage in a directory of the suite's own, so nothing else's
// containers or images are touched.
import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export type Driver = 'overlay' | 'vfs';

export interface Engine {
  /** The containers.conf in use (a copy of test/containers/containers.conf). */
  conf: string;
  driver: Driver;
  root: string;
  runroot: string;
}

/**
 * The suite's own image and container store, one per storage driver (they cannot share).
 * SEXTON_TEST_CONTAINERS_STORE gives two checkouts on one machine stores of their own.
 */
export function engineFor(conf: string, driver: Driver): Engine {
  const store = process.env.SEXTON_TEST_CONTAINERS_STORE || 'sexton-test-containers';
  return {
    conf,
    driver,
    root: `/var/lib/${store}/${driver}`,
    runroot: `/run/${store}/${driver}`,
  };
}

/** Copies containers.conf into `dir` with nofile set to this machine's hard limit. */
export async function writeContainersConf(dir: string): Promise<string> {
  const { stdout } = await execa('sh', ['-c', 'ulimit -Hn']);
  const hard = stdout.trim() === 'unlimited' ? '1048576' : stdout.trim();
  const template = readFileSync(path.join(__dirname, 'containers.conf'), 'utf8');
  const conf = path.join(dir, 'containers.conf');
  writeFileSync(conf, template.replace(/nofile=\d+:\d+/, `nofile=${hard}:${hard}`));
  return conf;
}

export interface PodmanOptions {
  timeoutMs?: number;
  /** Throw when podman exits non-zero (default true). */
  reject?: boolean;
}

export interface PodmanResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export async function podman(engine: Engine, args: string[], options: PodmanOptions = {}): Promise<PodmanResult> {
  const started = performance.now();
  const result = await execa(
    'podman',
    ['--root', engine.root, '--runroot', engine.runroot, '--storage-driver', engine.driver, ...args],
    {
      env: { CONTAINERS_CONF: engine.conf },
      timeout: options.timeoutMs ?? 60_000,
      reject: false,
      stdin: 'ignore',
    },
  );
  const out = {
    exitCode: result.exitCode,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    durationMs: performance.now() - started,
  };
  if ((options.reject ?? true) && (result.exitCode !== 0 || result.timedOut)) {
    const why = result.timedOut ? `timed out after ${options.timeoutMs ?? 60_000} ms` : `exit ${result.exitCode}`;
    throw new Error(`podman ${args.join(' ')}: ${why}\n${out.stderr}${out.stdout}`.slice(0, 4000));
  }
  return out;
}
