// The cgroup v2 tier (`npm run test:cgroup2`): boots a pure cgroup v2 Linux under qemu's TCG
// (this machine's memory, pids and freezer controllers are v1, and its /dev/kvm cannot run a stock
// kernel) and runs test/cgroup2 there. Everything comes from Debian's packages: the kernel of
// linux-image-amd64 (its plain ELF, booted through PVH without the decompressor), an initramfs made
// here from busybox-static and the kernel's own modules, and the host's root read-only over 9p.
// The guest writes its tests' status to a second 9p share. The boot and the run are bounded: at the
// budget, on a signal or on any failure, qemu is killed by its pid and the temporary files go.
// The tier fails (never skips) when the guest cannot boot or says nothing.
//   node scripts/cgroup2-guest.mjs [--command 'shell command run in the guest instead of the tests']
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync,
  symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const BUDGET_S = Number(process.env.SEXTON_CGROUP2_BUDGET_S ?? 540);
/** What the guest needs as modules (the rest is built in); their dependencies come along. */
const MODULES = ['virtio_pci', '9pnet_virtio', '9p', 'overlay', 'fuse'];

function fail(message) {
  console.error(`test:cgroup2: ${message}`);
  process.exitCode = 1;
}

/** The newest generic (not -cloud) kernel of linux-image-amd64. */
function kernelRelease() {
  const releases = existsSync('/boot') ? readdirSync('/boot').filter((f) => /^vmlinuz-.*-amd64$/.test(f))
    .map((f) => f.slice('vmlinuz-'.length)).filter((r) => !r.includes('cloud') && existsSync(`/lib/modules/${r}`)) : [];
  if (releases.length === 0) throw new Error('no /boot/vmlinuz-*-amd64 with its modules: install linux-image-amd64 (.ci/setup)');
  return releases.sort((a, b) => a.localeCompare(b, undefined, { numeric: true })).at(-1);
}

/**
 * The ELF inside the bzImage: the boot header gives the compressed payload's offset and length
 * (relative to the protected-mode code, after the setup sectors); Debian compresses it with xz.
 */
function extractElf(bzImage, out) {
  const image = readFileSync(bzImage);
  const setupSectors = (image[0x1f1] || 4) + 1;
  const start = setupSectors * 512 + image.readUInt32LE(0x248);
  const payload = image.subarray(start, start + image.readUInt32LE(0x24c));
  if (payload.subarray(0, 6).toString('latin1') !== '\xfd7zXZ\x00') throw new Error(`${bzImage}: payload is not xz`);
  // xz stops at the payload's end and complains about what follows (the kernel's size): the ELF is whole.
  const elf = (() => {
    try {
      return execFileSync('xz', ['-dc'], { input: payload, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'ignore'] });
    } catch (error) {
      return error.stdout;
    }
  })();
  if (elf?.subarray(0, 4).toString('latin1') !== '\x7fELF') throw new Error(`${bzImage}: no ELF in its payload`);
  writeFileSync(out, elf);
}

/** busybox, the modules and /init, as a newc cpio made by busybox itself. */
function buildInitramfs(release, out) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sexton-cgroup2-initramfs-'));
  try {
    for (const d of ['bin', 'modules', 'proc', 'sys', 'dev', 'newroot']) mkdirSync(path.join(dir, d));
    copyFileSync('/bin/busybox', path.join(dir, 'bin/busybox'));
    chmodSync(path.join(dir, 'bin/busybox'), 0o755);
    symlinkSync('busybox', path.join(dir, 'bin/sh'));
    const order = [];
    const add = (name) => {
      if (order.includes(name)) return;
      const info = (field) => execFileSync('modinfo', ['-k', release, '-F', field, name], { encoding: 'utf8' }).trim();
      for (const dependency of info('depends').split(',').filter(Boolean)) add(dependency);
      const found = info('filename');
      if (!found.endsWith('.ko')) throw new Error(`module ${name} is ${found}: expected an uncompressed .ko`);
      copyFileSync(found, path.join(dir, 'modules', `${name}.ko`));
      order.push(name);
    };
    for (const name of MODULES) add(name);
    // /init loads them in this order: each after what it depends on.
    writeFileSync(path.join(dir, 'modules/order'), `${order.join('\n')}\n`);
    copyFileSync(path.join(ROOT, 'test/cgroup2/guest-init.sh'), path.join(dir, 'init'));
    chmodSync(path.join(dir, 'init'), 0o755);
    const list = execFileSync('/bin/busybox', ['find', '.'], { cwd: dir });
    writeFileSync(out, execFileSync('/bin/busybox', ['cpio', '-o', '-H', 'newc'], { cwd: dir, input: list, maxBuffer: 1 << 28,
      stdio: ['pipe', 'pipe', 'ignore'] }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The kernel ELF and the initramfs, made once per kernel and per /init (cached beside node_modules). */
function bootFiles() {
  const release = kernelRelease();
  const inputs = [readFileSync(path.join(ROOT, 'test/cgroup2/guest-init.sh')), readFileSync(new URL(import.meta.url))];
  const key = `${release}-${createHash('sha256').update(Buffer.concat(inputs)).digest('hex').slice(0, 16)}`;
  const cache = path.join(ROOT, 'node_modules/.cache/sexton-cgroup2', key);
  const kernel = path.join(cache, 'vmlinux');
  const initramfs = path.join(cache, 'initramfs.cpio');
  if (!existsSync(kernel) || !existsSync(initramfs)) {
    const partial = `${cache}.partial-${process.pid}`;
    mkdirSync(partial, { recursive: true });
    try {
      extractElf(`/boot/vmlinuz-${release}`, path.join(partial, 'vmlinux'));
      buildInitramfs(release, path.join(partial, 'initramfs.cpio'));
      rmSync(cache, { recursive: true, force: true });
      renameSync(partial, cache);
      // Files made for another kernel or another /init are not used again.
      for (const old of readdirSync(path.dirname(cache))) {
        if (old !== key && !old.includes('.partial-')) rmSync(path.join(path.dirname(cache), old), { recursive: true, force: true });
      }
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  }
  return { release, kernel, initramfs };
}

async function main() {
  const command = process.argv.indexOf('--command');
  const started = Date.now();
  const { release, kernel, initramfs } = bootFiles();
  const results = mkdtempSync(path.join(tmpdir(), 'sexton-cgroup2-results-'));
  if (command > 0) writeFileSync(path.join(results, 'command'), `${process.argv[command + 1]}\n`);
  const append = ['console=ttyS0', 'quiet', 'panic=-1', 'cgroup_no_v1=all', 'systemd.unified_cgroup_hierarchy=1',
    `sexton_repo=${ROOT}`, 'sexton_stage=test/cgroup2/guest-stage.sh'].join(' ');
  // The kernel ends qemu should this process die by any means (a SIGKILL, a signal that comes
  // before the handlers below are heard): no guest outlives its tier.
  const qemu = spawn('setpriv', ['--pdeathsig', 'KILL', '--', 'qemu-system-x86_64',
    '-accel', 'tcg,thread=multi', '-cpu', 'max', '-smp', '2', '-m', '2048', '-nodefaults', '-no-reboot',
    '-display', 'none', '-serial', 'stdio', '-monitor', 'none',
    '-kernel', kernel, '-initrd', initramfs, '-append', append,
    '-fsdev', 'local,id=hostroot,path=/,readonly=on,security_model=none,multidevs=remap',
    '-device', 'virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot',
    '-fsdev', `local,id=results,path=${results},security_model=none`,
    '-device', 'virtio-9p-pci,fsdev=results,mount_tag=results',
  ], { stdio: ['ignore', 'inherit', 'inherit'] });
  console.log(`test:cgroup2: qemu ${qemu.pid} booting ${release} (budget ${BUDGET_S} s)`);
  const stop = (why) => {
    if (qemu.exitCode === null && qemu.signalCode === null) {
      fail(why);
      process.kill(qemu.pid, 'SIGKILL');
    }
  };
  const onSignal = (signal) => stop(`${signal}: killing qemu ${qemu.pid}`);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  const timer = setTimeout(() => stop(`the guest ran past its budget of ${BUDGET_S} s: killed qemu ${qemu.pid}`), BUDGET_S * 1000);
  try {
    const exit = await new Promise((resolve, reject) => {
      qemu.on('error', reject);
      qemu.on('exit', (code, signal) => resolve(signal ?? code));
    });
    const statusFile = path.join(results, 'status');
    const status = existsSync(statusFile) ? readFileSync(statusFile, 'utf8').trim() : '';
    const seconds = ((Date.now() - started) / 1000).toFixed(0);
    if (status === '') fail(`the guest left no status (qemu ended with ${exit}): it did not boot or did not finish`);
    else if (status !== '0') fail(`the tests in the guest failed (status ${status}); ${seconds} s`);
    else console.log(`test:cgroup2: passed in the cgroup v2 guest; ${seconds} s in all`);
  } finally {
    clearTimeout(timer);
    if (qemu.exitCode === null && qemu.signalCode === null) process.kill(qemu.pid, 'SIGKILL');
    rmSync(results, { recursive: true, force: true });
  }
}

main().catch((error) => fail(error instanceof Error ? error.message : String(error)));
