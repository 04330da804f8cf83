// The init's V8 code cache (src/boot/loader.ts, src/boot/code-cache.ts, src/boot/code-cache-train.ts): `sexton
// code-cache` trains it with the node that runs the command, sexton as PID 1 runs from it, and a
// damaged cache or another node's is never given to V8 (V8 would die in its deserializer: it
// checks no checksum outside debug builds). Each test trains its own copy of dist/, since other
// test files run the shared one meanwhile.
import { execa } from 'execa';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { otherLines } from '../support/node-lines';
import { requireBuilt, ROOT, startPid1 } from '../support/pid1';

let scratch = '';
let copies = 0;
let report = '';

beforeAll(() => {
  requireBuilt();
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-code-cache-test-'));
  // A preload that tells, on stderr, what became of the cache when the loader compiled the
  // init: "given, rejected: false" (V8 took it), "given, rejected: true", or "none".
  report = path.join(scratch, 'cache-report.cjs');
  writeFileSync(report, `
    Object.defineProperty(globalThis, Symbol.for('sexton.init-script'), {
      set(script) { require('fs').writeSync(2, 'code cache ' + (script.cachedDataRejected === undefined ? 'none' : 'given, rejected: ' + script.cachedDataRejected) + '\\n'); },
    });
  `);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A package of its own: dist/ copied (with no cache), the addon's directories linked. */
function packageCopy(): { sexton: string; cache: string } {
  const root = path.join(scratch, `package-${copies++}`);
  mkdirSync(root);
  cpSync(path.join(ROOT, 'dist'), path.join(root, 'dist'), { recursive: true, filter: (file) => !file.endsWith('init.cache') });
  for (const dir of ['build', 'prebuilds']) symlinkSync(path.join(ROOT, dir), path.join(root, dir));
  return { sexton: path.join(root, 'dist', 'sexton.js'), cache: path.join(root, 'dist', 'init.cache') };
}

const PATH_ONLY = { PATH: process.env.PATH as string };

const trainCache = (sexton: string, env: Record<string, string> = PATH_ONLY) =>
  execa(process.execPath, [sexton, 'code-cache'], { reject: false, timeout: 30_000, env, extendEnv: false });

/** sexton from `sexton` as PID 1 (node run with nodeFlags) with a child that exits 7. */
async function runWithReport(sexton: string, nodeFlags: string[] = [], env: Record<string, string> = {}) {
  const argv = [process.execPath, ...nodeFlags, '--require', report, sexton, '--', 'sh', '-c', 'exit 7'];
  const done = await (await startPid1(argv, { raw: true, env })).done();
  expect(done.exitCode, done.stderr).toBe(7);
  return done.stderr;
}

describe('sexton code-cache', () => {
  it('trains a cache for this node that sexton as PID 1 then runs from, also under --v8-pool-size=1', async () => {
    const pkg = packageCopy();
    const trained = await trainCache(pkg.sexton);
    expect(trained.exitCode, trained.stderr).toBe(0);
    expect(trained.stdout).toBe(`sexton code-cache: saved ${pkg.cache} for node ${process.version} ${process.arch}`);
    const head = readFileSync(pkg.cache, 'latin1').split('\n').slice(0, 4);
    expect(head[0]).toMatch(/^\/\/ sexton init crc32 \d+$/);
    expect(head[1]).toBe(`// node ${process.version} ${process.arch} ${statSync(process.execPath).size}`);
    expect(head[2]).toBe('// NODE_OPTIONS ""');
    expect(head[3]).toMatch(/^\/\/ crc32 \d+ length \d+$/);
    expect(await runWithReport(pkg.sexton)).toContain('code cache given, rejected: false');
    // images/add-sexton's ENTRYPOINT: a Node option, not a V8 flag, so V8 still takes it.
    expect(await runWithReport(pkg.sexton, ['--v8-pool-size=1'])).toContain('code cache given, rejected: false');
  });

  it('is trained under the NODE_OPTIONS it is run with: a cache made under others is not given to V8', async () => {
    const pkg = packageCopy();
    // What app images set for the app, and sexton as PID 1 gets too. V8 alone would take this
    // cache on Node 24 and later (it no longer counts heap sizes among its flags): sexton's check.
    const appFlags = { ...PATH_ONLY, NODE_OPTIONS: '--max-old-space-size=256' };
    expect((await trainCache(pkg.sexton)).exitCode).toBe(0);
    expect(readFileSync(pkg.cache, 'latin1').split('\n')[2]).toBe('// NODE_OPTIONS ""');
    expect(await runWithReport(pkg.sexton, [], appFlags)).toContain('code cache none');
    const trained = await trainCache(pkg.sexton, appFlags);
    expect(trained.exitCode, trained.stderr).toBe(0);
    expect(trained.stdout).toBe(`sexton code-cache: saved ${pkg.cache} for node ${process.version} ${process.arch} under NODE_OPTIONS='--max-old-space-size=256'`);
    expect(await runWithReport(pkg.sexton, [], appFlags)).toContain('code cache given, rejected: false');
  });

  it('trains with no NODE_OPTIONS when they hold a preload: sexton sheds them all, V8 flags too', async () => {
    const pkg = packageCopy();
    // An APM-like preload that outlives a TERM: in the training run's child it would keep the
    // run from ending by TERM. sexton sheds it, so the init runs with no NODE_OPTIONS at all.
    const preload = path.join(scratch, 'ignores-term.cjs');
    writeFileSync(preload, "process.on('SIGTERM', () => {});\n");
    const env = { ...PATH_ONLY, NODE_OPTIONS: `--require ${preload} --max-old-space-size=256` };
    const trained = await trainCache(pkg.sexton, env);
    expect(trained.exitCode, trained.stderr).toBe(0);
    expect(trained.stdout).toBe(`sexton code-cache: saved ${pkg.cache} for node ${process.version} ${process.arch}`);
    // Started under it as `node …/sexton.js`, sexton says so in one line, runs again without it
    // (the second report) and from the cache.
    expect(await runWithReport(pkg.sexton, [], env)).toMatch(/code cache none\nsexton: NODE_OPTIONS reached sexton's own node [^\n]*\ncode cache given, rejected: false\n/);
  });

  // CI runs one dist/ under each Node line (.ci/run): a cache trained by one line's node is
  // another node's cache to the others, which run sexton compiled as usual.
  it("another Node line's cache is not given to V8, and sexton runs", async () => {
    const pkg = packageCopy();
    const others = otherLines();
    expect(others.length, 'the other Node lines (bash .ci/setup installs them)').toBeGreaterThan(0);
    const trained = await execa(others[0], [pkg.sexton, 'code-cache'], { reject: false, timeout: 30_000, env: PATH_ONLY, extendEnv: false });
    expect(trained.exitCode, trained.stderr).toBe(0);
    expect(await runWithReport(pkg.sexton)).toContain('code cache none');
  });

  it('damaged bytes in the cache: sexton as PID 1 compiles as usual and runs its child', async () => {
    const pkg = packageCopy();
    expect((await trainCache(pkg.sexton)).exitCode).toBe(0);
    const cache = readFileSync(pkg.cache);
    // 64 bytes in the middle of V8's bytecode: given to V8, this made node die of SIGSEGV or
    // V8's "unreachable code" (checked by hand), before the child started.
    for (let i = cache.length >> 1; i < (cache.length >> 1) + 64; i++) cache[i] ^= 0x5a;
    writeFileSync(pkg.cache, cache);
    expect(await runWithReport(pkg.sexton)).toContain('code cache none');
  });

  it("another node's cache (another release, architecture or build) is not given to V8", async () => {
    const pkg = packageCopy();
    expect((await trainCache(pkg.sexton)).exitCode).toBe(0);
    const text = readFileSync(pkg.cache, 'latin1');
    writeFileSync(pkg.cache, Buffer.from(text.replace(`// node ${process.version} ${process.arch} `, `// node ${process.version} arm64 `), 'latin1'));
    expect(await runWithReport(pkg.sexton)).toContain('code cache none');
  });

  it('says in one line why it cannot save, and exits 1; takes no arguments (2, bad usage as everywhere but status)', async () => {
    const pkg = packageCopy();
    mkdirSync(pkg.cache);  // a directory where the cache goes
    writeFileSync(path.join(pkg.cache, 'x'), '');
    const failed = await trainCache(pkg.sexton);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/^sexton code-cache: cannot save .*init\.cache: \S+; sexton runs without it \(compiling at each start\)$/);
    const usage = await execa(process.execPath, [pkg.sexton, 'code-cache', '--now'], { reject: false, timeout: 10_000 });
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr.split('\n')[0]).toBe('sexton code-cache: takes no arguments');
  });
});

it('without dist/init.js, the sexton command says so in one line and exits 1', async () => {
  const pkg = packageCopy();
  rmSync(path.join(path.dirname(pkg.sexton), 'init.js'));
  const run = await execa(process.execPath, [pkg.sexton, '--', 'true'], { reject: false, timeout: 10_000 });
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toBe(`sexton: cannot read ${path.join(path.dirname(pkg.sexton), 'init.js')} (ENOENT); install sexton again`);
});
