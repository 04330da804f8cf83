// Which namespace the harness asks for, and what it says when the kernel refuses one: pure
// policy over CapEff, the three sysctls and unshare's own error lines (util-linux 2.38's words).
import { describe, expect, test } from 'vitest';
import { namespaceModeFor, userNamespaceBlocker, whyNotRun } from '../../../src/harness/userns';

describe('namespaceModeFor (CapEff)', () => {
  test('CAP_SYS_ADMIN (bit 21) makes the PID namespace directly; without it, a user namespace first', () => {
    expect(namespaceModeFor('000001ffffffffff')).toBe('pid');  // root on a host
    expect(namespaceModeFor('0000000000200000')).toBe('pid');  // CAP_SYS_ADMIN alone
    expect(namespaceModeFor('0000000000000000')).toBe('user');  // any user
    expect(namespaceModeFor('00000000a80425fb')).toBe('user');  // root in a default Docker container
    expect(namespaceModeFor(undefined)).toBe('user');
    expect(namespaceModeFor('not hex')).toBe('user');
  });
});

describe('userNamespaceBlocker (which sysctl says what)', () => {
  test('nothing forbids when the files are absent or permissive', () => {
    expect(userNamespaceBlocker({})).toBeUndefined();
    expect(userNamespaceBlocker({ unprivilegedUsernsClone: '1', maxUserNamespaces: '96364', apparmorRestrict: '0' })).toBeUndefined();
  });

  test('user.max_user_namespaces = 0', () => {
    expect(userNamespaceBlocker({ maxUserNamespaces: '0' })).toBe(
      'user namespaces are disabled (user.max_user_namespaces = 0): enable them with `sudo sysctl -w user.max_user_namespaces=10000`, or run as root');
  });

  test('kernel.unprivileged_userns_clone = 0 (Debian, older Ubuntu)', () => {
    expect(userNamespaceBlocker({ unprivilegedUsernsClone: '0', maxUserNamespaces: '63000' })).toMatch(
      /^unprivileged user namespaces are disabled \(kernel\.unprivileged_userns_clone = 0\): enable them with `sudo sysctl -w kernel\.unprivileged_userns_clone=1`/);
  });

  test('kernel.apparmor_restrict_unprivileged_userns = 1 (Ubuntu 23.10 and later)', () => {
    expect(userNamespaceBlocker({ unprivilegedUsernsClone: '1', apparmorRestrict: '1' })).toMatch(
      /^AppArmor restricts unprivileged user namespaces \(kernel\.apparmor_restrict_unprivileged_userns = 1\): lift it with `sudo sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0`/);
  });

  test('the one that forbids outright is named first', () => {
    expect(userNamespaceBlocker({ maxUserNamespaces: '0', unprivilegedUsernsClone: '0', apparmorRestrict: '1' })).toMatch(/user\.max_user_namespaces = 0/);
    expect(userNamespaceBlocker({ unprivilegedUsernsClone: '0', apparmorRestrict: '1' })).toMatch(/unprivileged_userns_clone = 0/);
  });
});

describe('whyNotRun (one line from unshare stderr)', () => {
  const open = { maxUserNamespaces: '1000' };

  test('the command could not be started', () => {
    expect(whyNotRun('unshare: failed to execute no-such-init: No such file or directory\n', 'user', open))
      .toBe('the command could not be started: unshare: failed to execute no-such-init: No such file or directory');
  });

  test('a user namespace refused: the sysctl that forbids it, and unshare\'s words', () => {
    expect(whyNotRun('unshare: unshare failed: No space left on device\n', 'user', { maxUserNamespaces: '0' }))
      .toMatch(/^user namespaces are disabled \(user\.max_user_namespaces = 0\): .* \(unshare: unshare failed: No space left on device\)$/);
    // AppArmor lets the namespace be made but not mapped.
    expect(whyNotRun('unshare: write failed /proc/self/uid_map: Operation not permitted\n', 'user', { apparmorRestrict: '1' }))
      .toMatch(/^AppArmor restricts .* \(unshare: write failed \/proc\/self\/uid_map: Operation not permitted\)$/);
  });

  test('a user namespace refused with no sysctl to blame: seccomp, said so', () => {
    expect(whyNotRun('unshare: unshare failed: Operation not permitted\n', 'user', open))
      .toMatch(/^no user namespace could be made \(unshare: unshare failed: Operation not permitted\): a container's seccomp profile may forbid them/);
  });

  test('a PID namespace refused (the caller seemed privileged): CAP_SYS_ADMIN named, no sysctl', () => {
    expect(whyNotRun('unshare: unshare failed: Operation not permitted\n', 'pid', { maxUserNamespaces: '0' }))
      .toBe('no PID namespace could be made (unshare: unshare failed: Operation not permitted): it needs CAP_SYS_ADMIN');
  });

  test('one line, escaped and bounded, whatever unshare wrote', () => {
    const line = whyNotRun(`unshare: unshare failed: \x1b[31m${'x'.repeat(1000)}\n`, 'user', open);
    expect(line).not.toMatch(/[\x00-\x1f]/);
    expect(line).toContain('\\x1b[31m');
    expect(line.length).toBeLessThan(400);
    expect(whyNotRun('', 'user', open)).toBe('PID 1 was never seen, and unshare said nothing');
  });
});
