// Builds the self-contained sexton tree: everything sexton needs to run as PID 1 in an image
// that has nothing (no shell, no C library, no Node), meant to be mounted at /sexton (an image
// volume, images/sexton-volume) or copied there (images/add-sexton, the add-sexton pod).
//
//   /sexton/bin/sexton   the launcher (native/launcher/launcher.c): static, no shell needed
//   /sexton/bin/node     this node binary, its interpreter and rpath pointed into the tree
//   /sexton/lib/         the loader and the libraries `ldd node` names, copied from here
//   /sexton/sexton/      sexton's package: package.json, dist/ (and its code cache), the addon
//
// Usage: node scripts/sexton-tree.mjs [OUT]   (default build/sexton-tree; run after npm run build)
// Needs patchelf and a C compiler that links statically (musl-gcc, or gcc with libc.a). The code
// cache is trained with the tree at /sexton: in place when OUT is /sexton, else (as root) in a
// private mount namespace that shows OUT there; without either, sexton compiles as usual.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import * as path from 'node:path';

export const TREE_HOME = '/sexton';
const ROOT = path.resolve(new URL('..', import.meta.url).pathname);
/** The loader's name in the tree, as the launcher is compiled to expect it. */
const LOADERS = { x64: 'ld-linux-x86-64.so.2', arm64: 'ld-linux-aarch64.so.1' };

const run = (file, args, options = {}) => execFileSync(file, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], ...options });

function onPath(command) {
  try {
    return run('sh', ['-c', `command -v ${command}`]).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The static launcher: musl when there is one (~40 kB), else glibc's static libc. */
function buildLauncher(out, loader) {
  const cc = onPath('musl-gcc') ?? 'cc';
  run(cc, ['-static', '-Os', '-s', '-Wall', '-Wextra', `-DTREE_HOME="${TREE_HOME}"`, `-DLOADER="${loader}"`,
    '-o', out, ...['launcher.c', 'copy_tree.c'].map((file) => path.join(ROOT, 'native', 'launcher', file))]);
}

/** The native executables beside the addon (native/tools/). */
const TOOLS = ['sexton-probe', 'sexton-status'];

/** The shared objects `ldd` names for file: [name in the tree, file to copy]. */
function libraries(file) {
  const out = [];
  for (const line of run('ldd', [file]).split('\n')) {
    const linked = /^\s*(\S+) => (\/\S+)/.exec(line);
    const loader = /^\s*(\/\S+) \(0x/.exec(line);
    if (linked) out.push([linked[1], linked[2]]);
    else if (loader) out.push([path.basename(loader[1]), loader[1]]);
  }
  return out;
}

/** Trains dist/init.cache for the tree's node, run as the tree would be (at /sexton). */
function trainCodeCache(tree) {
  if (tree === TREE_HOME) return run(path.join(tree, 'bin', 'sexton'), ['code-cache'], { stdio: 'inherit' });
  if (process.getuid?.() !== 0) {
    console.warn('sexton-tree: not root, so no code cache (sexton compiles its init at each start, ~3 ms)');
    return undefined;
  }
  // A root of its own: the tree at /sexton, the host's /proc and /dev, a /tmp for the training.
  const root = mkdtempSync(path.join(path.dirname(tree), '.sexton-tree-root-'));
  try {
    for (const dir of ['sexton', 'proc', 'dev', 'tmp']) mkdirSync(path.join(root, dir));
    const script = 'mount --bind "$1" "$2/sexton" && mount --rbind /proc "$2/proc" && mount --rbind /dev "$2/dev"'
      + ' && exec chroot "$2" /sexton/bin/sexton code-cache';
    // TMPDIR: the caller's may not exist in that root; its /tmp does.
    return run('unshare', ['--mount', '--propagation', 'private', '--fork', '--', 'sh', '-c', script, 'sh', tree, root],
      { stdio: 'inherit', env: { ...process.env, TMPDIR: '/tmp' } });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export function buildTree(out) {
  const loader = LOADERS[process.arch];
  if (!loader) throw new Error(`sexton-tree: no loader name known for ${process.arch}`);
  // A local build, else the glibc prebuild an installed package ships (node here runs on glibc).
  const addon = [path.join('build', 'Release', 'sexton.node'), path.join('prebuilds', `linux-${process.arch}`, 'sexton.glibc.node')]
    .find((file) => existsSync(path.join(ROOT, file)));
  if (!addon || !existsSync(path.join(ROOT, 'dist', 'init.js'))) throw new Error('sexton-tree: run "npm run build" first');
  rmSync(out, { recursive: true, force: true });
  for (const dir of ['bin', 'lib', path.join('sexton', path.dirname(addon))]) mkdirSync(path.join(out, dir), { recursive: true });

  buildLauncher(path.join(out, 'bin', 'sexton'), loader);
  const node = realpathSync(process.execPath);
  const treeNode = path.join(out, 'bin', 'node');
  copyFileSync(node, treeNode);
  chmodSync(treeNode, 0o755);
  // Its libraries from the tree, never from the image: DT_RPATH (not RUNPATH) also serves the
  // addon, which node dlopens.
  run('patchelf', ['--set-interpreter', `${TREE_HOME}/lib/${loader}`, '--force-rpath', '--set-rpath', '$ORIGIN/../lib', treeNode]);
  const seen = new Set();
  for (const [name, file] of [...libraries(node), ...libraries(path.join(ROOT, addon))]) {
    if (seen.has(name)) continue;
    seen.add(name);
    copyFileSync(realpathSync(file), path.join(out, 'lib', name));
    chmodSync(path.join(out, 'lib', name), 0o755);
  }

  const pkg = path.join(out, 'sexton');
  copyFileSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
  copyFileSync(path.join(ROOT, 'LICENSE'), path.join(pkg, 'LICENSE'));
  // The bundles only: the types and another node's code cache stay behind.
  cpSync(path.join(ROOT, 'dist'), path.join(pkg, 'dist'), {
    recursive: true,
    filter: (file) => !file.includes(`${path.sep}types`) && !['init.cache', ...TOOLS].includes(path.basename(file)),
  });
  copyFileSync(path.join(ROOT, addon), path.join(pkg, addon));
  // `sexton probe` and `sexton status`, the native executables, where the build or the prebuild
  // put them: the tree's `sexton code-cache` links them into dist/ (src/boot/native-tool-links.ts).
  for (const tool of TOOLS) {
    const file = [path.join('build', 'Release', tool), path.join('prebuilds', `linux-${process.arch}`, tool)]
      .find((candidate) => existsSync(path.join(ROOT, candidate)));
    if (!file) throw new Error(`sexton-tree: ${tool} is missing: run "npm run build" first`);
    mkdirSync(path.join(pkg, path.dirname(file)), { recursive: true });
    copyFileSync(path.join(ROOT, file), path.join(pkg, file));
  }
  trainCodeCache(path.resolve(out));
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = path.resolve(process.argv[2] ?? path.join(ROOT, 'build', 'sexton-tree'));
  buildTree(out);
  console.log(`sexton-tree: ${out}`);
}
