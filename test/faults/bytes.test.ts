// Bytes, values and messages through the real CLI. Node's child_process turns
// every argument into UTF-8 text, so bytes that are not UTF-8 reach sexton through a shell
// script that builds each word with printf from octal escapes.
import { execa } from 'execa';
import { chmodSync, closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ArgvFuzz, messageProblems, type Word } from '../support/argv-fuzz';
import { requireBuilt, requireTini, SEXTON, TINI } from '../support/pid1';
import { track } from '../support/processes';
import { inPidNamespace } from '../../src/harness/namespace';

const NODE = process.execPath;
let scratch = '';
let empty = '';

beforeAll(() => {
  requireBuilt();
  requireTini();
  scratch = mkdtempSync(path.join(tmpdir(), 'sexton-faults-b-bytes-'));
  empty = path.join(scratch, 'empty');
  mkdirSync(empty);
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

const bytes = (word: Word) => (typeof word === 'string' ? Buffer.from(word) : word);
const octal = (word: Word) => [...bytes(word)].map((b) => `\\${b.toString(8).padStart(3, '0')}`).join('');
/** Shell lines that set `name` to exactly these bytes (the x keeps trailing newlines). */
const assign = (name: string, word: Word) => `${name}="$(printf '${octal(word)}'; printf x)"; ${name}="\${${name}%x}"`;

let scripts = 0;

interface Ran { exitCode: number | undefined; stdout: Buffer; stderr: string; signal?: string }

/**
 * Runs `init ARGS` with exactly these bytes as its arguments and in its environment, as PID 1 of
 * a new PID namespace (with its own /proc) when pid1 is set.
 */
async function runWords(init: string[], words: Word[], options: { env?: Record<string, Word>; pid1?: boolean; cwd?: string } = {}): Promise<Ran> {
  const lines = words.map((word, i) => assign(`a${i}`, word));
  for (const [name, value] of Object.entries(options.env ?? {})) lines.push(assign(name, value), `export ${name}`);
  lines.push(`exec "$@" ${words.map((_, i) => `"$a${i}"`).join(' ')}`);
  const script = path.join(scratch, `words-${++scripts}.sh`);
  writeFileSync(script, `${lines.join('\n')}\n`);
  const argv = ['/bin/sh', script, ...init];
  const full = options.pid1 ? inPidNamespace(argv) : argv;
  const proc = execa(full[0], full.slice(1), {
    reject: false, stdin: 'ignore', encoding: 'buffer', timeout: 20_000, killSignal: 'SIGKILL', cwd: options.cwd ?? scratch,
    env: { PATH: process.env.PATH as string }, extendEnv: false, stripFinalNewline: false,
  });
  track(proc.pid);
  const result = await proc;
  // execa hands back Uint8Arrays for encoding 'buffer'.
  const stdout = Buffer.from(result.stdout as unknown as Uint8Array);
  return { exitCode: result.exitCode, stdout, stderr: Buffer.from(result.stderr as unknown as Uint8Array).toString(), signal: result.signal };
}

const CAFE = Buffer.from([0x63, 0x61, 0x66, 0xe9]);  // "café" in Latin-1: not UTF-8

describe('bytes that are not UTF-8 reach the child unchanged', () => {
  it.each([false, true])("sexton -- printf %%s $'caf\\xe9' prints 63 61 66 e9 (PID 1: %s), as tini does", async (pid1) => {
    const sexton = await runWords([NODE, SEXTON], ['--', 'printf', '%s', CAFE], { pid1 });
    const tini = await runWords([TINI, '-s'], ['--', 'printf', '%s', CAFE], { pid1 });
    expect(tini.stdout.toString('hex')).toBe('636166e9');
    expect(sexton.stdout.toString('hex')).toBe('636166e9');
    expect(sexton).toMatchObject({ exitCode: 0, stderr: '' });
  });

  it('a command whose path has such bytes runs, by its path and through a PATH that has them', async () => {
    const dir = Buffer.concat([Buffer.from(`${scratch}/`), CAFE]);
    mkdirSync(dir, { recursive: true });
    const program = Buffer.concat([dir, Buffer.from('/show-self')]);
    writeFileSync(program, '#!/bin/sh\nprintf "ran %s" "$0"\n');
    chmodSync(program, 0o755);

    const byPath = await runWords([NODE, SEXTON], ['--', program], { pid1: true });
    expect(byPath).toMatchObject({ exitCode: 0, stderr: '' });
    expect(byPath.stdout).toEqual(Buffer.concat([Buffer.from('ran '), program]));

    const viaSearch = await runWords([NODE, SEXTON], ['--', 'show-self'], { env: { PATH: Buffer.concat([dir, Buffer.from(`:${process.env.PATH}`)]) } });
    expect(viaSearch).toMatchObject({ exitCode: 0, stderr: '' });
    expect(viaSearch.stdout).toEqual(Buffer.concat([Buffer.from('ran '), program]));

    // And a command whose name is such bytes, found in an ordinary PATH directory.
    const named = Buffer.concat([Buffer.from(`${scratch}/bin/`), CAFE]);
    mkdirSync(path.join(scratch, 'bin'), { recursive: true });
    writeFileSync(named, '#!/bin/sh\nprintf named\n');
    chmodSync(named, 0o755);
    const byName = await runWords([NODE, SEXTON], ['--', CAFE], { env: { PATH: `${scratch}/bin:/usr/bin:/bin` } });
    expect(byName).toMatchObject({ exitCode: 0, stderr: '' });
    expect(byName.stdout.toString()).toBe('named');
  });

  it('a command that is not there is named escaped, in one line: 127', async () => {
    const run = await runWords([NODE, SEXTON], ['--', Buffer.concat([CAFE, Buffer.from('\x1b[2J\n')])]);
    expect(run.exitCode).toBe(127);
    expect(run.stderr).toBe("sexton: cannot run 'caf\\u{fffd}\\x1b[2J\\n': command not found\n");
  });
});

const TRY = "Try 'sexton --help' for usage.";

describe('empty values are usage errors (exit 2, one line and the usual hint)', () => {
  const cases: [string, string[], Record<string, string>, string][] = [
    ['--grace=', ['--grace=', '--', 'true'], {}, 'option --grace needs a value'],
    ["-t ''", ['-t', '', '--', 'true'], {}, 'option -t needs a value'],
    ['--stop-signal=', ['--stop-signal=', '--', 'true'], {}, 'option --stop-signal needs a value'],
    ['--metrics=', ['--metrics=', '--', 'true'], {}, 'option --metrics needs a value'],
    ['SEXTON_GRACE=', ['--', 'true'], { SEXTON_GRACE: '' }, 'SEXTON_GRACE is set but empty: unset it or give it a value'],
    ["sexton ''", [''], {}, "the command is an empty word ('')"],
  ];
  for (const [name, argv, env, message] of cases) {
    it(name, async () => {
      const run = await runWords([NODE, SEXTON], argv, { env });
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toBe(`sexton: ${message}\n${TRY}\n`);
      expect(run.stdout.length).toBe(0);
    });
  }
});

describe('exec failures say what happened', () => {
  it('a script whose #! interpreter is missing: 127, and it names the interpreter', async () => {
    const script = path.join(scratch, 'no-interpreter.sh');
    writeFileSync(script, '#!/nonexistent/faults-b-shell -e\necho never\n');
    chmodSync(script, 0o755);
    const run = await runWords([NODE, SEXTON], ['--', script], { pid1: true });
    expect(run.exitCode).toBe(127);
    expect(run.stderr).toBe(`sexton: cannot run '${script}': its interpreter '/nonexistent/faults-b-shell' was not found\n`);
  });

  it('a loop of symbolic links (ELOOP): 126, in words', async () => {
    const a = path.join(scratch, 'loop-a');
    const b = path.join(scratch, 'loop-b');
    symlinkSync(b, a);
    symlinkSync(a, b);
    const run = await runWords([NODE, SEXTON], ['--', a]);
    expect(run.exitCode).toBe(126);
    expect(run.stderr).toBe(`sexton: cannot run '${a}': too many levels of symbolic links\n`);
  });

  it('a program that is open for writing (ETXTBSY): 126, in words', async () => {
    const binary = path.join(scratch, 'being-written');
    copyFileSync('/bin/true', binary);
    chmodSync(binary, 0o755);
    const writer = openSync(binary, 'r+');  // held by this test while sexton tries to run it
    try {
      const run = await runWords([NODE, SEXTON], ['--', binary]);
      expect(run.exitCode).toBe(126);
      expect(run.stderr).toBe(`sexton: cannot run '${binary}': the file is open for writing (text file busy)\n`);
    } finally {
      closeSync(writer);
    }
  });
});

describe('the real CLI under a fuzz of argv vectors with raw bytes', () => {
  const VECTORS = 500;
  const SEED = 0xfa017b;

  it(`${VECTORS} vectors: no crash, no stack trace, every line one printable bounded line`, async () => {
    const fuzz = new ArgvFuzz(SEED, true);
    const vectors = Array.from({ length: VECTORS }, () => ({ argv: fuzz.argv('/bin/true'), env: fuzz.env() }));
    const bad: string[] = [];
    const codes = new Map<number | undefined, number>();
    let next = 0;
    // Word commands are looked up in an empty PATH directory: nothing random gets to run.
    const worker = async () => {
      while (next < vectors.length) {
        const i = next++;
        const { argv, env } = vectors[i];
        const run = await runWords([NODE, SEXTON], argv, { env: { PATH: empty, ...env } });
        codes.set(run.exitCode, (codes.get(run.exitCode) ?? 0) + 1);
        const shown = `#${i} ${JSON.stringify(argv.map((w) => w.toString().slice(0, 60)))} ${JSON.stringify(Object.keys(env))}`;
        if (run.signal !== undefined || ![0, 2, 127].includes(run.exitCode as number)) bad.push(`${shown}: exit ${run.exitCode} ${run.signal ?? ''} ${run.stderr.slice(0, 300)}`);
        for (const line of run.stderr.split('\n').filter(Boolean)) {
          const problems = messageProblems(line);
          if (!line.startsWith('sexton: ') && line !== TRY) problems.push('not a sexton line');
          if (problems.length > 0) bad.push(`${shown}: ${problems.join(', ')}: ${JSON.stringify(line.slice(0, 200))}`);
        }
        if (run.exitCode === 2 && !/^sexton: [^\n]+\nTry 'sexton --help' for usage\.\n$/.test(run.stderr)) bad.push(`${shown}: usage error not one line: ${JSON.stringify(run.stderr.slice(0, 300))}`);
      }
    };
    await Promise.all([worker(), worker(), worker()]);
    console.log(`exit codes over ${VECTORS} vectors: ${JSON.stringify(Object.fromEntries(codes))}`);
    expect(bad.slice(0, 20), `seed ${SEED}: ${bad.length} problems`).toEqual([]);
    expect(codes.get(2) ?? 0).toBeGreaterThan(VECTORS / 3);  // the error paths are reached
  }, 180_000);
});
