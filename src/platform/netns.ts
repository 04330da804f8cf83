// sexton's network namespace as the kernel counts it: the TCP counters of /proc/net/snmp, its
// sockets (through the addon's inet_diag dump), and whether it is the host's.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { readText } from './read-text';

export interface TcpCounters {
  /** Connections accepted (handshakes completed on a listener), IPv4 and IPv6 alike. */
  passiveOpens: number;
  /** Resets sent: among them, the answer to a connection no listener takes. */
  outRsts: number;
}

/**
 * Reads the Tcp lines of /proc/net/snmp (a header line of names, a line of values). The TCP MIB
 * is one for both families: /proc/net/snmp6 has no Tcp6 lines, and an IPv6 accept counts here.
 */
export function parseTcpCounters(text: string): TcpCounters | undefined {
  const lines = text.split('\n').filter((line) => line.startsWith('Tcp:'));
  if (lines.length < 2) return undefined;
  const names = lines[0].trim().split(/\s+/);
  const values = lines[1].trim().split(/\s+/);
  const value = (name: string) => {
    const i = names.indexOf(name);
    return i < 0 || i >= values.length || !/^\d+$/.test(values[i]) ? undefined : Number(values[i]);
  };
  const passiveOpens = value('PassiveOpens');
  const outRsts = value('OutRsts');
  return passiveOpens === undefined || outRsts === undefined ? undefined : { passiveOpens, outRsts };
}

export function readTcpCounters(procRoot = '/proc'): TcpCounters | undefined {
  const text = readText(`${procRoot}/net/snmp`);
  return text === undefined ? undefined : parseTcpCounters(text);
}

/** The initial network namespace's fixed inode number (PROC_NET_INIT_INO, Linux 6.x). */
export const HOST_NETNS_INODE = 0xeffffff9;

/**
 * Why sexton's network namespace looks like the host's, or undefined when it looks like a pod's
 * own. Two signs: the namespace is the initial one (by its fixed inode number, where the kernel
 * has one), or an interface of it sits on a bus device (a real NIC: /sys/class/net/X/device);
 * a pod's veth, macvlan or loopback has none. sysfs shows the namespace of whoever mounted it,
 * which in a container (and under `ip netns exec`) is the container's.
 */
export function hostNetworkSign(procRoot = '/proc', sysRoot = '/sys'): string | undefined {
  try {
    if (statSync(`${procRoot}/self/ns/net`).ino === HOST_NETNS_INODE) return 'this is the initial network namespace';
  } catch {
    // no namespace file: decide by the interfaces
  }
  try {
    const nic = readdirSync(`${sysRoot}/class/net`).find((name) => existsSync(`${sysRoot}/class/net/${name}/device`));
    if (nic !== undefined) return `interface ${JSON.stringify(nic)} is a device of this machine`;
  } catch {
    // no sysfs: nothing says it is the host's
  }
  return undefined;
}
