// Which namespace a run can have without root, and, when none, why in one line a user can act on.
// Pure policy over what the kernel shows (CapEff, three sysctl files, unshare's own error line),
// so the unit tests read it without root or namespaces.
import { readFileSync } from 'node:fs';

/**
 * 'pid': a PID namespace of the caller's own (needs CAP_SYS_ADMIN: root on a host, a privileged
 * container). 'user': a user namespace first, where the caller is root and may make the rest;
 * any user can, where the kernel allows unprivileged user namespaces.
 */
export type NamespaceMode = 'pid' | 'user';

const CAP_SYS_ADMIN = 21n;

/** CapEff from /proc/self/status (hex): without CAP_SYS_ADMIN unshare --pid fails, so go through a user namespace. */
export function namespaceModeFor(capEffHex: string | undefined): NamespaceMode {
  if (capEffHex === undefined || !/^[0-9a-f]+$/i.test(capEffHex)) return 'user';
  return (BigInt(`0x${capEffHex}`) >> CAP_SYS_ADMIN) & 1n ? 'pid' : 'user';
}

export function ownNamespaceMode(): NamespaceMode {
  try {
    const status = readFileSync('/proc/self/status', 'latin1');
    return namespaceModeFor(/^CapEff:\s*([0-9a-f]+)/im.exec(status)?.[1]);
  } catch {
    return 'user';
  }
}

/** The sysctls that can forbid unprivileged user namespaces, as their files read (undefined: absent). */
export interface UserNamespaceSysctls {
  /** kernel.unprivileged_userns_clone (Debian's and older Ubuntu's kernels): 0 forbids. */
  unprivilegedUsernsClone?: string;
  /** user.max_user_namespaces: 0 forbids every new user namespace. */
  maxUserNamespaces?: string;
  /**
   * kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10 and later): 1 leaves the namespace
   * without capabilities.
   */
  apparmorRestrict?: string;
}

const SYSCTL_FILES: Record<keyof UserNamespaceSysctls, string> = {
  unprivilegedUsernsClone: '/proc/sys/kernel/unprivileged_userns_clone',
  maxUserNamespaces: '/proc/sys/user/max_user_namespaces',
  apparmorRestrict: '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
};

export function readUserNamespaceSysctls(): UserNamespaceSysctls {
  const out: UserNamespaceSysctls = {};
  for (const [key, file] of Object.entries(SYSCTL_FILES) as [keyof UserNamespaceSysctls, string][]) {
    try {
      out[key] = readFileSync(file, 'latin1').trim();
    } catch {
      // absent on this kernel: it forbids nothing
    }
  }
  return out;
}

/**
 * The sysctl that forbids unprivileged user namespaces, as one line saying how to lift it;
 * undefined when none does.
 */
export function userNamespaceBlocker(s: UserNamespaceSysctls): string | undefined {
  if (s.maxUserNamespaces === '0') {
    return 'user namespaces are disabled (user.max_user_namespaces = 0): ' +
      'enable them with `sudo sysctl -w user.max_user_namespaces=10000`, or run as root';
  }
  if (s.unprivilegedUsernsClone === '0') {
    return 'unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0): ' +
      'enable them with `sudo sysctl -w kernel.unprivileged_userns_clone=1`, or run as root';
  }
  if (s.apparmorRestrict === '1') {
    return 'AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1): ' +
      'lift it with `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, or run as root';
  }
  return undefined;
}

/** One line of text, bounded, with control characters escaped: it is echoed into reports. */
function oneLine(text: string): string {
  const line = text.replace(/[\x00-\x1f\x7f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

/**
 * Why PID 1 never ran, in one line, from unshare's stderr: the command could not be started, or
 * the namespace could not be made (then, for a user namespace, which sysctl forbids it).
 */
export function whyNotRun(stderr: string, mode: NamespaceMode, sysctls: UserNamespaceSysctls): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter(Boolean);
  const exec = lines.find((l) => /^unshare: failed to execute /.test(l));
  if (exec) return `the command could not be started: ${oneLine(exec)}`;
  const error = lines.find((l) => l.startsWith('unshare: '));
  if (!error) return oneLine(lines.at(-1) ?? 'PID 1 was never seen, and unshare said nothing');
  if (mode === 'pid') return `no PID namespace could be made (${oneLine(error)}): it needs CAP_SYS_ADMIN`;
  const blocker = userNamespaceBlocker(sysctls);
  if (blocker) return `${blocker} (${oneLine(error)})`;
  return `no user namespace could be made (${oneLine(error)}): ` +
    "a container's seccomp profile may forbid them; run the job privileged, or as root with CAP_SYS_ADMIN";
}
