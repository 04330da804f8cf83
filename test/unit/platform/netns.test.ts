// The network namespace's TCP counters, as a drain reads them (pure parsing).
import { expect, test } from 'vitest';
import { parseTcpCounters } from '../../../src/platform/netns';

test("/proc/net/snmp's Tcp lines: PassiveOpens and OutRsts by name, not by position", () => {
  const text = 'Ip: Forwarding\nIp: 1\nTcp: RtoAlgorithm PassiveOpens OutRsts\nTcp: 1 42 7\nUdp: InDatagrams\nUdp: 3\n';
  expect(parseTcpCounters(text)).toEqual({ passiveOpens: 42, outRsts: 7 });
  expect(parseTcpCounters('Tcp: RtoAlgorithm\nTcp: 1\n')).toBeUndefined();
  expect(parseTcpCounters('')).toBeUndefined();
});
