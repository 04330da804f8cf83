// The self-contained tree (scripts/sexton-tree.mjs, images/sexton-volume) against the in-image
// form (the npm package run by the image's own node): the bytes each adds to a pod, and the time
// from exec to the child's start and back (`sexton -- /bin/true`, median of N rounds, interleaved).
//
//   node bench/measure/volume.mjs [ROUNDS]     (root: a private mount namespace and a chroot)
//
// Both forms run in one root of their own, so that the tree is at /sexton, where it runs as it
// will in a pod: the host's /usr, /bin, /lib and /lib64 bound read-only, the tree at /sexton, this
// checkout at /pkg. Every PID 1 gets only PATH, as in a container (bench/NOTES.md).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(new URL('../..', import.meta.url).pathname);
const rounds = Number(process.argv[2] ?? 20);

function bytes(file) {
  const st = statSync(file);
  if (!st.isDirectory()) return st.size;
  return readdirSync(file).reduce((sum, name) => sum + bytes(path.join(file, name)), 0);
}
const mib = (n) => `${(n / 1048576).toFixed(1)} MiB`;

const scratch = mkdtempSync(path.join(tmpdir(), 'sexton-bench-volume-'));
try {
  const tree = path.join(scratch, 'tree');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'sexton-tree.mjs'), tree], { stdio: 'inherit' });
  const sizes = {
    tree: bytes(tree),
    treeNode: bytes(path.join(tree, 'bin', 'node')),
    treeLibraries: bytes(path.join(tree, 'lib')),
    treeLauncher: bytes(path.join(tree, 'bin', 'sexton')),
    treePackage: bytes(path.join(tree, 'sexton')),
    inImagePackage: bytes(path.join(ROOT, 'dist')) + bytes(path.join(ROOT, 'build', 'Release', 'sexton.node')),
  };

  // Inside the chroot: time each form's `-- /bin/true`, rounds interleaved, the first of each untimed.
  const timer = `
    const { spawnSync } = require('node:child_process');
    const forms = { tree: ['/sexton/bin/sexton', ['--', '/bin/true']],
      inImage: ['/pkg/dist/sexton.js', ['--', '/bin/true']], nodeAlone: ['/usr/bin/node', ['-e', '0']] };
    const times = Object.fromEntries(Object.keys(forms).map((k) => [k, []]));
    for (let round = -1; round < ${rounds}; round++) for (const [name, [file, args]] of Object.entries(forms)) {
      const t = process.hrtime.bigint();
      const r = spawnSync(file, args, { env: { PATH: '/usr/bin:/bin' }, stdio: 'inherit' });
      if (r.status !== 0) throw new Error(name + ' exited ' + r.status);
      if (round >= 0) times[name].push(Number(process.hrtime.bigint() - t) / 1e6);
    }
    const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
    console.log(JSON.stringify(Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]))));`;
  writeFileSync(path.join(scratch, 'timer.cjs'), timer);
  const root = path.join(scratch, 'root');
  for (const dir of ['sexton', 'pkg', 'usr', 'bin', 'lib', 'lib64', 'proc', 'dev', 'tmp', 'timer']) mkdirSync(path.join(root, dir), { recursive: true });
  const binds = [[tree, 'sexton'], [ROOT, 'pkg'], ['/usr', 'usr'], ['/bin', 'bin'], ['/lib', 'lib'], ['/lib64', 'lib64'], [scratch, 'timer']]
    .map(([from, to]) => `mount --rbind ${from} "$R/${to}" && mount -o remount,bind,ro "$R/${to}"`).join(' && ');
  const script = `R="$1"; ${binds} && mount -t proc proc "$R/proc" && mount --rbind /dev "$R/dev" && exec chroot "$R" /usr/bin/node /timer/timer.cjs`;
  const out = execFileSync('unshare', ['--mount', '--propagation', 'private', '--pid', '--fork', '--', 'sh', '-c', script, 'sh', root], {
    encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  const ms = JSON.parse(out.trim().split('\n').pop());
  console.log(`sizes: tree ${mib(sizes.tree)} (node ${mib(sizes.treeNode)}, libraries ${mib(sizes.treeLibraries)}, launcher ` +
    `${(sizes.treeLauncher / 1024).toFixed(0)} KiB, sexton ${mib(sizes.treePackage)}); in-image package ${mib(sizes.inImagePackage)}`);
  console.log(`start to exit of \`sexton -- /bin/true\`, median of ${rounds}: tree ${ms.tree.toFixed(1)} ms, ` +
    `in-image ${ms.inImage.toFixed(1)} ms (node -e 0: ${ms.nodeAlone.toFixed(1)} ms); load ${readLoad()}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function readLoad() {
  return execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ')[0];
}
