// What sexton says and tries about the command: PATH searched by its bytes,
// exec failures in words, the #! interpreter that is missing.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandCandidates, execFailure } from '../../../src/init/command';

const e = constants.errno;
const dir = mkdtempSync(path.join(tmpdir(), 'sexton-unit-command-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('commandCandidates', () => {
  it('a name with a slash is tried as it is', () => {
    expect(commandCandidates('./run', '/bin')).toEqual(['./run']);
    const raw = Buffer.from('/tmp/caf\xe9/run', 'latin1');
    expect(commandCandidates(raw, '/bin')).toEqual([raw]);
  });

  it('searches PATH in order; an empty entry is the current directory', () => {
    expect(commandCandidates('ls', '/usr/bin::/bin')).toEqual(['/usr/bin/ls', './ls', '/bin/ls']);
  });

  it('keeps the bytes of a PATH and of a name that are not UTF-8', () => {
    const latin1 = Buffer.from('/opt/caf\xe9/bin:/bin', 'latin1');
    expect(commandCandidates('run', latin1)).toEqual([
      Buffer.from('/opt/caf\xe9/bin/run', 'latin1'),
      Buffer.from('/bin/run'),
    ]);
    const name = Buffer.from('caf\xe9', 'latin1');
    expect(commandCandidates(name, '/bin')).toEqual([Buffer.from('/bin/caf\xe9', 'latin1')]);
  });
});

describe('execFailure', () => {
  it('command not found: 127', () => {
    expect(execFailure('nope', e.ENOENT, ['/bin/nope'])).toEqual({ exitCode: 127, message: "cannot run 'nope': command not found" });
  });

  it('a script whose #! interpreter is missing: 127, naming the interpreter', () => {
    const script = path.join(dir, 'script');
    writeFileSync(script, '#!/no/such/interpreter -x\n');
    chmodSync(script, 0o755);
    expect(execFailure('script', e.ENOENT, [path.join(dir, 'absent'), script])).toEqual({
      exitCode: 127, message: "cannot run 'script': its interpreter '/no/such/interpreter' was not found",
    });
  });

  it('ELOOP, ETXTBSY, EACCES and the rest are words, exit 126', () => {
    expect(execFailure('x', e.ELOOP)).toEqual({ exitCode: 126, message: "cannot run 'x': too many levels of symbolic links" });
    expect(execFailure('x', e.ETXTBSY)).toEqual({ exitCode: 126, message: "cannot run 'x': the file is open for writing (text file busy)" });
    expect(execFailure('x', e.EACCES).message).toBe("cannot run 'x': permission denied");
    expect(execFailure('x', e.ENOEXEC).message).toBe("cannot run 'x': not an executable format");
  });

  it('echoes the command escaped', () => {
    expect(execFailure('a\nb\x1b', e.ENOENT).message).toBe("cannot run 'a\\nb\\x1b': command not found");
  });
});
