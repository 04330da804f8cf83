// The init's V8 code cache (src/loader.ts, src/code-cache.ts, src/code-cache-train.ts): `sexton
// code-cache` trains it with the node that runs the command, sexton as PID 1 runs from it, and a
// damaged cache or another node's is never given to V8 (V8 would die in its deserializer: it
// checks no checksum outside debug builds). Each test trains its own copy of dist/, since other
// test files run the shared one meanwhile.
import { execa } from 'execa';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuilt, ROOT, runAsPid1 } from './support/pid1';

let scratch = '';
let copies = 0;

beforeAll(() => {
  requireBuilt();
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-code-cache-test-'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A package of its own: dist/ copied (with no cache), the addon's directories linked. */
function packageCopy(): { root: string; sexton: string; cache: string } {
  const root = path.join(scratch, `package-${copies++}`);
  mkdirSync(root);
  cpSync(path.join(ROOT, 'dist'), path.join(root, 'dist'), { recursive: true, filter: (file) => !file.endsWith('init.cache') });
  for (const dir of ['build', 'prebuilds']) symlinkSync(path.join(ROOT, dir), path.join(root, dir));
  return { root, sexton: path.join(root, 'dist', 'sexton.js'), cache: path.join(root, 'dist', 'init.cache') };
}

/**
 * A preload that tells, on stderr, what became of the cache when the loader compiled the init:
 * "given: false" (V8 took it), "given: true" (V8 refused it), "none" (not given to V8).
 */
function cacheReport(): string {
  const preload = path.join(scratch, 'cache-report.cjs');
  writeFileSync(preload, `
    Object.defineProperty(globalThis, Symbol.for('sexton.init-script'), {
      set(init) { require('fs').writeSync(2, 'code cache ' + (init.script.cachedDataRejected === undefined ? 'none' : 'given, rejected: ' + init.script.cachedDataRejected) + '\\n'); },
    });
  `);
  return preload;
}

async function trainCache(sexton: string) {
  return execa(process.execPath, [sexton, 'code-cache'], { reject: false, timeout: 30_000, env: { PATH: process.env.PATH as string } });
}

describe('sexton code-cache', () => {
  it('trains a cache for this node that sexton as PID 1 then runs from', async () => {
    const pkg = packageCopy();
    const trained = await trainCache(pkg.sexton);
    expect(trained.exitCode, trained.stderr).toBe(0);
    expect(trained.stdout).toContain(`saved ${pkg.cache} for node ${process.version}`);
    const head = readFileSync(pkg.cache, 'latin1').split('\n').slice(0, 3);
    expect(head[0]).toMatch(/^\/\/ sexton init [0-9a-f]{24}$/);
    expect(head[1]).toBe(`// node ${process.version} ${process.arch} ${statSync(process.execPath).size}`);
    expect(head[2]).toMatch(/^\/\/ crc32 \d+ length \d+$/);
    const run = await runAsPid1([process.execPath, '--require', cacheReport(), pkg.sexton, '--', 'sh', '-c', 'exit 7'], { raw: true });
    const done = await run.done();
    expect(done.exitCode, done.stderr).toBe(7);
    expect(done.stderr).toContain('code cache given, rejected: false');
  });

  it('damaged bytes in the cache: sexton as PID 1 compiles as usual and runs its child', async () => {
    const pkg = packageCopy();
    expect((await trainCache(pkg.sexton)).exitCode).toBe(0);
    const cache = readFileSync(pkg.cache);
    // 64 bytes in the middle of V8's bytecode: given to V8, this made node die of SIGSEGV or
    // V8's "unreachable code" (checked by hand), before the child started.
    for (let i = cache.length >> 1; i < (cache.length >> 1) + 64; i++) cache[i] ^= 0x5a;
    writeFileSync(pkg.cache, cache);
    const run = await runAsPid1([process.execPath, '--require', cacheReport(), pkg.sexton, '--', 'sh', '-c', 'exit 7'], { raw: true });
    const done = await run.done();
    expect(done.exitCode, done.stderr).toBe(7);
    expect(done.stderr).toContain('code cache none');
  });

  it("another node's cache (another release, architecture or build) is not given to V8", async () => {
    const pkg = packageCopy();
    expect((await trainCache(pkg.sexton)).exitCode).toBe(0);
    const text = readFileSync(pkg.cache, 'latin1');
    writeFileSync(pkg.cache, Buffer.from(text.replace(`// node ${process.version} ${process.arch} `, `// node ${process.version} arm64 `), 'latin1'));
    const run = await runAsPid1([process.execPath, '--require', cacheReport(), pkg.sexton, '--', 'sh', '-c', 'exit 7'], { raw: true });
    const done = await run.done();
    expect(done.exitCode, done.stderr).toBe(7);
    expect(done.stderr).toContain('code cache none');
  });

  it('says in one line why it cannot save, and exits 1; takes no arguments (64)', async () => {
    const pkg = packageCopy();
    mkdirSync(pkg.cache);  // a directory where the cache goes
    writeFileSync(path.join(pkg.cache, 'x'), '');
    const failed = await trainCache(pkg.sexton);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toMatch(/^sexton code-cache: cannot replace .*init\.cache: \S+; sexton runs without it \(compiling at each start\)$/);
    const usage = await execa(process.execPath, [pkg.sexton, 'code-cache', '--now'], { reject: false, timeout: 10_000 });
    expect(usage.exitCode).toBe(64);
    expect(usage.stderr.split('\n')[0]).toBe('sexton code-cache: takes no arguments');
  });
});
