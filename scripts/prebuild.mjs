// Builds the prebuilt addons the npm package carries, for linux x64 and arm64, each for glibc
// and musl, on one x64 Debian machine with Debian's compilers (docs/prebuilds.md says why):
//   prebuilds/linux-<arch>/sexton.<glibc|musl>.node   (node-gyp-build's layout)
//   prebuilds/linux-<arch>/sexton-probe, sexton-status (native/tools/, linked statically with
//                                                       musl: they run on any C library)
// The compiler is called directly with the Node-API headers of the node-api-headers package: no
// node-gyp, so no Node headers to download and no dependence on npm's nodedir setting. Objects
// go to a scratch directory outside the work tree; only prebuilds/ is written here.
// A target whose inputs (sources, this script, the header packages, the compiler and libraries)
// are unchanged since its file was built is not built again; --force builds it anyway.
//   node scripts/prebuild.mjs [--force] [--target linux-arm64-musl ...]
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
/** What each prebuild was built from (outside prebuilds/, which is packed). */
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'sexton-prebuilds');

/** One prebuild: Node's arch name, the libc tag, and the Debian cross toolchain's prefix. */
export const TARGETS = [
  { arch: 'x64', libc: 'glibc', prefix: 'x86_64-linux-gnu-', musl: '' },
  { arch: 'arm64', libc: 'glibc', prefix: 'aarch64-linux-gnu-', musl: '' },
  { arch: 'x64', libc: 'musl', prefix: 'x86_64-linux-gnu-', musl: 'x86_64-linux-musl' },
  { arch: 'arm64', libc: 'musl', prefix: 'aarch64-linux-gnu-', musl: 'aarch64-linux-musl' },
];

const DEFINES = ['NAPI_VERSION=8', 'NAPI_DISABLE_CPP_EXCEPTIONS', 'NODE_ADDON_API_DISABLE_DEPRECATED'];
// The same flags as binding.gyp and CMakeLists.txt, plus: section GC so that only the parts of
// the static libstdc++ the addon calls are linked; prefix maps so that the output does not
// depend on where the checkout is (the build is byte-for-byte reproducible).
const COMMON = ['-O2', '-fPIC', '-pthread', '-Wall', '-Wextra', '-ffunction-sections', '-fdata-sections', `-ffile-prefix-map=${ROOT}=.`];
const CXX_ONLY = ['-std=c++17', '-fno-exceptions'];
const CXX_TOOL = ['-fno-rtti'];
const LINK = ['-shared', '-Wl,--gc-sections', '-Wl,--exclude-libs,ALL', '-Wl,-z,noexecstack', '-Wl,--build-id=sha1'];

async function output(command, args) {
  try {
    return (await run(command, args, { maxBuffer: 16 << 20 })).stdout + '';
  } catch (error) {
    if (error.code === 'ENOENT') {
      throw new Error(`${command} not found: install the cross toolchains (bash .ci/setup lists the Debian packages)`);
    }
    throw new Error(`${command} ${args.join(' ')}\n${error.stderr || error.message}`);
  }
}

/** The C++ header directories the compiler itself uses (libstdc++'s, not the C library's). */
async function cxxIncludeDirs(cxx) {
  const { stderr } = await run(cxx, ['-v', '-E', '-x', 'c++', '/dev/null']).catch((e) => e);
  const list = stderr.slice(stderr.indexOf('#include <...>'), stderr.indexOf('End of search list'));
  return list.split('\n').map((l) => l.trim()).filter((l) => l.includes('/c++/'));
}

/**
 * Compiler and linker arguments for a target. glibc: the cross compiler as it is (its glibc is
 * 2.36; native/compat/glibc_compat.c keeps the references at 2.28 and below). musl: the same compiler
 * with musl's headers and libc from Debian's musl-dev in place of glibc's, and libstdc++/libgcc
 * linked statically (musl has no libstdc++ of its own in Debian; test/shipping/musl.test.ts checks that
 * every symbol the result needs is one musl exports).
 */
/**
 * The kernel's UAPI headers (linux/, asm/, asm-generic/) for a musl build: musl ships none (Alpine
 * takes them from linux-headers), and they are the same for any C library. Debian's come with
 * linux-libc-dev and its arm64 cross twin. A directory of links to those three alone, so that no
 * glibc header can stand in for one musl lacks. Removed when this script exits.
 */
function kernelHeaders(arch) {
  const [top, asm] = arch === 'x64' ? ['/usr/include', '/usr/include/x86_64-linux-gnu'] : ['/usr/aarch64-linux-gnu/include', '/usr/aarch64-linux-gnu/include'];
  const dir = mkdtempSync(path.join(tmpdir(), `sexton-kernel-headers-${arch}-`));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(path.join(top, 'linux'), path.join(dir, 'linux'));
  symlinkSync(path.join(top, 'asm-generic'), path.join(dir, 'asm-generic'));
  symlinkSync(path.join(asm, 'asm'), path.join(dir, 'asm'));
  return dir;
}

async function toolchain(target) {
  const cxx = `${target.prefix}g++`;
  const includes = ['-I', require('node-api-headers').include_dir, '-I', path.join(ROOT, require('node-addon-api').include_dir)];
  const file = async (name) => (await output(cxx, [`-print-file-name=${name}`])).trim();
  const version = await output(cxx, ['--version']);
  if (!target.musl) {
    const libraries = await Promise.all(['libstdc++.a', 'libgcc_eh.a', 'libc.so.6'].map(file));
    return { cxx, version, libraries, compile: includes, link: ['-static-libstdc++', '-static-libgcc'], libs: [] };
  }
  const musl = [`/usr/include/${target.musl}`, `/usr/lib/${target.musl}`];
  const gccInclude = await file('include');
  const system = [...(await cxxIncludeDirs(cxx)), musl[0], kernelHeaders(target.arch), gccInclude].flatMap((dir) => ['-isystem', dir]);
  const [crtbegin, crtend, libstdcxx, libgccEh, libgcc, crtbeginStatic, crtendStatic] = await Promise.all(
    ['crtbeginS.o', 'crtendS.o', 'libstdc++.a', 'libgcc_eh.a', 'libgcc.a', 'crtbeginT.o', 'crtend.o'].map(file),
  );
  const crt = (name) => path.join(musl[1], name);
  // libstdc++'s headers were configured for glibc: native/compat/musl/bits/c++config.h adapts them.
  const adapt = ['-isystem', path.join(ROOT, 'native', 'compat', 'musl')];
  return {
    cxx,
    version,
    libraries: [libstdcxx, libgccEh, path.join(musl[1], 'libc.a')],
    compile: ['-nostdinc', ...adapt, ...system, ...includes],
    link: ['-nostdlib', path.join(musl[1], 'crti.o'), crtbegin],
    libs: ['-Wl,--start-group', libstdcxx, libgccEh, libgcc, '-Wl,--end-group', `-L${musl[1]}`, '-lc', crtend, path.join(musl[1], 'crtn.o')],
    // The native tools: a static executable, musl's libc.a inside.
    toolLink: ['-static', '-nostdlib', '-Wl,--gc-sections', '-Wl,-z,noexecstack', '-Wl,--build-id=sha1', crt('crt1.o'), crt('crti.o'), crtbeginStatic],
    toolLibs: ['-Wl,--start-group', libstdcxx, libgccEh, libgcc, crt('libc.a'), '-Wl,--end-group', crtendStatic, crt('crtn.o')],
  };
}

/** Runs `jobs` (functions returning promises) with at most `limit` at a time. */
async function pool(jobs, limit) {
  const results = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

/** The native tools' sources (relative to the checkout), by tool. */
const TOOL_SOURCES = JSON.parse(readFileSync(path.join(ROOT, 'native', 'tools', 'sources.json'), 'utf8'));
/** The tools come with the musl target of each arch: linked statically, they run on any C library. */
const toolsOf = (target) => (target.musl ? Object.keys(TOOL_SOURCES) : []);

/** Source files (relative to the checkout) of a target's addon. */
function sourcesOf(target) {
  const native = readdirSync(path.join(ROOT, 'native')).filter((f) => /\.(c|cc)$/.test(f)).sort();
  return [...native.map((f) => `native/${f}`), 'native/compat/glibc_compat.c', ...(target.musl ? ['native/compat/musl/compat.c'] : [])];
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    .sort();
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** A digest of everything a target's file is made from. Paths are relative: a copy digests the same. */
function inputsDigest(chain) {
  const hash = createHash('sha256');
  for (const file of [path.join(ROOT, 'scripts', 'prebuild.mjs'), ...filesUnder(path.join(ROOT, 'native'))]) {
    hash.update(`${path.relative(ROOT, file)}\0`).update(readFileSync(file));
  }
  for (const pkg of ['node-api-headers', 'node-addon-api']) {
    hash.update(JSON.parse(readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version);
  }
  hash.update(chain.version);
  for (const library of chain.libraries) hash.update(`${library} ${statSync(library).size} ${statSync(library).mtimeMs}`);
  return hash.digest('hex');
}

const outputOf = (target) => path.join(ROOT, 'prebuilds', `linux-${target.arch}`, `sexton.${target.libc}.node`);
const toolOutputOf = (target, tool) => path.join(ROOT, 'prebuilds', `linux-${target.arch}`, tool);
/** Every file a target makes: its addon, and the tools with the musl ones. */
const outputsOf = (target) => [outputOf(target), ...toolsOf(target).map((tool) => toolOutputOf(target, tool))];
const digestsOf = (target) => Object.fromEntries(outputsOf(target).map((file) => [path.relative(ROOT, file), sha256(readFileSync(file))]));
const recordOf = (target) => path.join(CACHE, `linux-${target.arch}-${target.libc}.json`);

/** The file is there and is the one last built from these inputs. */
function upToDate(target, digest) {
  try {
    const record = JSON.parse(readFileSync(recordOf(target), 'utf8'));
    return record.digest === digest && JSON.stringify(record.sha256) === JSON.stringify(digestsOf(target));
  } catch {
    return false;
  }
}

/** Builds the targets whose file is missing or stale (all of them with force); returns those built. */
async function buildAll(requested, force) {
  // Relative source paths and a fixed working directory: the checkout's location ends up nowhere.
  process.chdir(ROOT);
  const allChains = await Promise.all(requested.map(toolchain));
  const digests = allChains.map(inputsDigest);
  const stale = requested.map((_, i) => i).filter((i) => force || !upToDate(requested[i], digests[i]));
  const targets = stale.map((i) => requested[i]);
  const chains = stale.map((i) => allChains[i]);
  if (targets.length === 0) return [];
  const scratch = mkdtempSync(path.join(tmpdir(), 'sexton-prebuild-'));
  try {
    const defines = DEFINES.map((d) => `-D${d}`);
    const jobs = targets.map((target, t) => {
      const dir = path.join(scratch, `${target.arch}-${target.libc}`);
      mkdirSync(dir, { recursive: true });
      const toolOnly = [...new Set(toolsOf(target).flatMap((tool) => TOOL_SOURCES[tool]))].filter((f) => !sourcesOf(target).includes(f));
      return [...sourcesOf(target), ...toolOnly].map((source) => async () => {
        const object = path.join(dir, `${source.replaceAll('/', '_')}.o`);
        const cxx = source.startsWith('native/tools/') ? [...CXX_ONLY, ...CXX_TOOL] : CXX_ONLY;
        const [lang, std] = source.endsWith('.cc') ? ['c++', cxx] : ['c', ['-std=c11']];
        await output(chains[t].cxx, ['-x', lang, ...COMMON, ...std, ...defines, ...chains[t].compile, '-c', source, '-o', object]);
        return object;
      });
    });
    const objects = await pool(jobs.flat(), availableParallelism());
    let at = 0;
    for (const [t, target] of targets.entries()) {
      const mine = objects.slice(at, (at += jobs[t].length));
      const objectOf = (source) => mine.find((object) => path.basename(object) === `${source.replaceAll('/', '_')}.o`);
      for (const tool of toolsOf(target)) {
        const file = path.join(scratch, `${tool}.${target.arch}`);
        await output(chains[t].cxx, [...chains[t].toolLink, ...TOOL_SOURCES[tool].map(objectOf), ...chains[t].toolLibs, '-o', file]);
        await output(`${target.prefix}strip`, ['--strip-all', file]);
        mkdirSync(path.dirname(toolOutputOf(target, tool)), { recursive: true });
        renameSync(file, toolOutputOf(target, tool));
      }
      const built = path.join(scratch, `sexton.${target.arch}.${target.libc}.node`);
      await output(chains[t].cxx, [...LINK, ...chains[t].link, ...sourcesOf(target).map(objectOf), ...chains[t].libs, '-o', built]);
      await output(`${target.prefix}strip`, ['--strip-all', built]);
      mkdirSync(path.dirname(outputOf(target)), { recursive: true });
      renameSync(built, outputOf(target));
      const record = JSON.stringify({ digest: digests[stale[t]], sha256: digestsOf(target) });
      mkdirSync(CACHE, { recursive: true });
      writeFileSync(`${recordOf(target)}.${process.pid}`, record);
      renameSync(`${recordOf(target)}.${process.pid}`, recordOf(target));
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return targets;
}

function selected(argv) {
  const names = argv.filter((a) => a !== '--target' && a !== '--force');
  if (names.length === 0) return TARGETS;
  return names.map((name) => {
    const target = TARGETS.find((t) => `linux-${t.arch}-${t.libc}` === name);
    if (!target) throw new Error(`unknown target ${name}; known: ${TARGETS.map((t) => `linux-${t.arch}-${t.libc}`).join(' ')}`);
    return target;
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  try {
    const argv = process.argv.slice(2);
    const built = await buildAll(selected(argv), argv.includes('--force'));
    const names = built.flatMap((t) => outputsOf(t).map((file) => path.relative(path.join(ROOT, 'prebuilds'), file)));
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(names.length > 0 ? `prebuilds: built ${names.join(' ')} in ${seconds} s` : `prebuilds: up to date (${seconds} s)`);
  } catch (error) {
    console.error(`prebuild: ${error.message}`);
    process.exit(1);
  }
}
