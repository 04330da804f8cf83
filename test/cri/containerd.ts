// A containerd of the tier's own: root, state, socket, config and the pods' cgroups all under
// names with `cri-<random>` in them, nothing system-wide. Teardown removes every pod through CRI,
// stops containerd, kills what is left in the tier's cgroups, unmounts what is left under its
// directory and removes it; the synchronous part also runs from a process-exit guard.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import * as path from 'node:path';
import { sleep, until } from '../support/pid1';
import { connect, CriClient } from './client';

export interface Containerd {
  /** The tier's directory: cri-<random> under the temp dir. */
  dir: string;
  /** `cri-<random>`: the cgroup above every pod of this run, and the prefix of its names. */
  name: string;
  socket: string;
  /** Where pods' log directories go (the kubelet's /var/log/pods). */
  podsDir: string;
  pid: number;
}

/** The config: the CRI plugin with runc on cgroupfs, the local pause image, no CNI needed. */
function config(dir: string, pauseImage: string): string {
  const cri = 'plugins."io.containerd.grpc.v1.cri"';
  return `version = 2
root = "${dir}/root"
state = "${dir}/state"
[grpc]
  address = "${dir}/containerd.sock"
[ttrpc]
  address = "${dir}/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "${dir}/opt"
[${cri}]
  sandbox_image = "${pauseImage}"
  # No CAP_SYS_RESOURCE here: the pause container's oom_score_adj of -998 cannot be set.
  restrict_oom_score_adj = true
  # Port 0: two runs on one machine never fight over the streaming server's port.
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
  enable_selinux = false
[${cri}.containerd]
  snapshotter = "overlayfs"
  default_runtime_name = "runc"
[${cri}.containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
[${cri}.containerd.runtimes.runc.options]
  BinaryName = "/usr/bin/runc"
  Root = "${dir}/runc"
  SystemdCgroup = false
[${cri}.cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "${dir}/cni"
`;
}

/** Every cgroup v1 hierarchy (and the v2 root) where runc makes the pods' cgroups. */
function cgroupRoots(): string[] {
  const roots: string[] = [];
  for (const line of readFileSync('/proc/self/mountinfo', 'utf8').split('\n')) {
    const fields = line.split(' ');
    const type = fields[fields.indexOf('-') + 1];
    if (type === 'cgroup' || type === 'cgroup2') roots.push(fields[4]);
  }
  return roots;
}

/** cgroup directories of a tree, deepest first. */
function cgroupTree(dir: string): string[] {
  let subdirs: string[];
  try {
    subdirs = readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
  return [...subdirs.flatMap(cgroupTree), dir];
}

/** Processes in the tier's cgroups: only pods of this run are there. */
export function podProcesses(name: string): number[] {
  const pids = new Set<number>();
  for (const root of cgroupRoots()) {
    for (const dir of cgroupTree(path.join(root, name))) {
      try {
        for (const pid of readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) pids.add(Number(pid));
      } catch {
        // removed meanwhile
      }
    }
  }
  return [...pids];
}

/** Mount points under dir, deepest first. */
function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4]).filter((m) => m && (m === dir || m.startsWith(`${dir}/`))).sort((a, b) => b.length - a.length);
}

/** Shims of this run: containerd starts them with -address <our socket>; they outlive it. */
function shimsOf(socket: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv[0].endsWith('containerd-shim-runc-v2') && argv.includes(socket)) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

const GUARDED: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** Takes the exit and signal guards off once teardown has run. */
let disarm: (() => void) | undefined;

const kill = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
};

/**
 * The synchronous part of teardown: containerd, its shims and every process in the run's
 * cgroups SIGKILLed (all of them ours: the names are this run's), cgroups and mounts removed,
 * the directory deleted. Safe to run twice.
 */
export function removeEverything(c: Pick<Containerd, 'dir' | 'name' | 'socket'>, child: ChildProcess): string[] {
  const problems: string[] = [];
  // Through the ChildProcess: once Node has seen it exit, its pid may be someone else's.
  child.kill('SIGKILL');
  for (const pid of shimsOf(c.socket)) kill(pid);
  for (let attempt = 0; attempt < 50; attempt++) {
    const left = podProcesses(c.name);
    left.forEach(kill);
    let busy = false;
    for (const root of cgroupRoots()) {
      for (const dir of cgroupTree(path.join(root, c.name))) {
        try {
          rmdirSync(dir);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') busy = true;
        }
      }
    }
    if (!busy) break;
    execFileSync('sleep', ['0.1']);
    if (attempt === 49) problems.push(`cgroups of ${c.name} still busy: ${left.join(' ')}`);
  }
  for (const mount of mountsUnder(c.dir)) {
    try {
      execFileSync('umount', ['-l', mount], { stdio: 'ignore' });
    } catch {
      problems.push(`cannot unmount ${mount}`);
    }
  }
  try {
    rmSync(c.dir, { recursive: true, force: true });
  } catch (error) {
    problems.push(`cannot remove ${c.dir}: ${(error as Error).message}`);
  }
  return problems;
}

export async function startContainerd(pauseImage: string): Promise<{ containerd: Containerd; child: ChildProcess; client: CriClient }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'cri-'));
  const name = path.basename(dir);
  mkdirSync(path.join(dir, 'cni'));
  mkdirSync(path.join(dir, 'pods'));
  mkdirSync(path.join(dir, 'containers'));  // the kubelet's /var/log/containers, beside pods/
  writeFileSync(path.join(dir, 'config.toml'), config(dir, pauseImage));
  const log = openSync(path.join(dir, 'containerd.log'), 'a');
  const child = spawn('containerd', ['--config', path.join(dir, 'config.toml')], { stdio: ['ignore', log, log] });
  const containerd: Containerd = { dir, name, socket: path.join(dir, 'containerd.sock'), podsDir: path.join(dir, 'pods'), pid: child.pid ?? -1 };
  // A run that dies before its teardown (a crash, Ctrl-C, CI's TERM) still removes everything.
  const guard = () => removeEverything(containerd, child);
  const onSignal = (signal: NodeJS.Signals) => {
    guard();
    process.exit(128 + (constants.signals[signal] ?? 0));
  };
  process.once('exit', guard);
  for (const signal of GUARDED) process.once(signal, onSignal);
  disarm = () => {
    process.off('exit', guard);
    for (const signal of GUARDED) process.off(signal, onSignal);
  };
  try {
    await until(() => existsSync(containerd.socket), 20_000, 'containerd to listen');
    const client = connect(containerd.socket);
    await client.version();
    return { containerd, child, client };
  } catch (error) {
    const tail = readFileSync(path.join(dir, 'containerd.log'), 'utf8').slice(-3000);
    removeEverything(containerd, child);
    disarm?.();
    throw new Error(`containerd did not start: ${(error as Error).message}\n${tail}`);
  }
}

/** Removes every pod through CRI (as the kubelet would), then everything else. */
export async function stopContainerd(containerd: Containerd, child: ChildProcess, client: CriClient): Promise<string[]> {
  const problems: string[] = [];
  try {
    for (const pod of await client.listPods()) {
      await client.stopPod(pod.id).catch((e: Error) => problems.push(`StopPodSandbox ${pod.id}: ${e.message}`));
      await client.removePod(pod.id).catch((e: Error) => problems.push(`RemovePodSandbox ${pod.id}: ${e.message}`));
    }
  } catch (error) {
    problems.push(`ListPodSandbox: ${(error as Error).message}`);
  }
  client.close();
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(5000)]);
  }
  problems.push(...removeEverything(containerd, child));
  disarm?.();
  return problems;
}
