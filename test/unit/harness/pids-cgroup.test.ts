// Where a normal user's pids limit can live: the cgroup v2 mount, this process's cgroup, and the
// nearest ancestor that hands the pids controller to its children and is writable. The tree is
// a scratch directory laid out as cgroupfs lays out a systemd user slice.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { cgroup2Mount, delegatedPidsParent, ownCgroup2Path, typeToJoin } from '../../../src/harness/pids-cgroup';

describe('cgroup2Mount and ownCgroup2Path', () => {
  test('a hybrid host (this one) and a unified one', () => {
    const hybrid = '35 30 0:33 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n';
    expect(cgroup2Mount(hybrid)).toBe('/sys/fs/cgroup/unified');
    expect(cgroup2Mount('29 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n')).toBe('/sys/fs/cgroup');
    expect(cgroup2Mount('22 1 0:21 / / rw - ext4 /dev/sda1 rw\n')).toBeUndefined();
    expect(ownCgroup2Path('8:pids:/\n0::/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope\n'))
      .toBe('/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope');
    expect(ownCgroup2Path('4:memory:/x\n')).toBeUndefined();
  });
});

describe('delegatedPidsParent', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  /** A scratch cgroup tree: each path with the controllers its children get. */
  function tree(dirs: Record<string, string>): string {
    root = mkdtempSync(path.join(tmpdir(), 'sexton-rootless-cgroup-'));
    for (const [dir, controls] of Object.entries(dirs)) {
      mkdirSync(path.join(root, dir), { recursive: true });
      writeFileSync(path.join(root, dir, 'cgroup.subtree_control'), controls);
      writeFileSync(path.join(root, dir, 'cgroup.procs'), '');
    }
    return root;
  }
  const own = '/user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope';
  const slice = {
    '.': 'cpu memory pids', 'user.slice': 'cpu memory pids', 'user.slice/user-1000.slice': 'memory pids',
    'user.slice/user-1000.slice/user@1000.service': 'cpu memory pids', 'user.slice/user-1000.slice/user@1000.service/app.slice': 'memory pids',
    'user.slice/user-1000.slice/user@1000.service/app.slice/run-1.scope': '',
  };
  // The user owns user@1000.service and below (systemd's Delegate=yes); root owns the rest.
  const delegated = (mount: string) => (p: string) => p.startsWith(path.join(mount, 'user.slice/user-1000.slice/user@1000.service'));

  test('a systemd user slice: the nearest delegated ancestor with pids', () => {
    const mount = tree(slice);
    expect(delegatedPidsParent(mount, own, delegated(mount))).toBe(path.join(mount, 'user.slice/user-1000.slice/user@1000.service/app.slice'));
  });

  test('pids not handed down where the user may write: none', () => {
    const mount = tree({ ...slice, 'user.slice/user-1000.slice/user@1000.service': 'memory', 'user.slice/user-1000.slice/user@1000.service/app.slice': 'memory' });
    expect(delegatedPidsParent(mount, own, delegated(mount))).toBeUndefined();
  });

  test('a job in a system service (CI runners): nothing writable, none; root could use the nearest', () => {
    const mount = tree({ '.': 'cpu memory pids', 'system.slice': 'cpu memory pids', 'system.slice/runner.service': '' });
    expect(delegatedPidsParent(mount, '/system.slice/runner.service', () => false)).toBeUndefined();
    expect(delegatedPidsParent(mount, '/system.slice/runner.service', () => true)).toBe(path.join(mount, 'system.slice'));
  });

  test('a hybrid host\'s empty cgroup v2 (this machine): none', () => {
    const mount = tree({ '.': '' });
    expect(delegatedPidsParent(mount, '/', () => true)).toBeUndefined();
  });
});

describe('typeToJoin', () => {
  test('a child of a cgroup with processes and pids for its children (the harness\'s own, delegated): threaded', () => {
    expect(typeToJoin('domain invalid\n')).toBe('threaded');
  });

  test('a child of a slice without processes, or of a v1 hierarchy (no cgroup.type read): as made', () => {
    expect(typeToJoin('domain\n')).toBeUndefined();
    expect(typeToJoin('threaded\n')).toBeUndefined();
  });
});
