// Attribution from /proc/PID/cgroup: real-world paths of every runtime and cgroup driver, in
// cgroup v1 (a line per hierarchy) and v2 (`0::path`), including this machine's hybrid layout.
import { describe, expect, test } from 'vitest';
import { attributeCgroup, attributePath } from '../../../src/scan/cgroup';

const ID = '3d622ec4078dff0ca415ccc098c62b52adbb41a727662cf86cc818e88ab2b1d3';
const POD_ID = '33a480033839d88b10144c7730bf59fedf8c6d61fb93aecce8818a0336635a7a';
const UID = '2f3a4b5c-6d7e-4f80-9a1b-2c3d4e5f6a7b';
const UID_ = UID.replace(/-/g, '_');

/** A v1 /proc/PID/cgroup with every controller at `path`, plus the (empty) unified line. */
const v1 = (path: string, unified = '/') =>
  ['12:memory', '11:pids', '10:cpu,cpuacct', '1:name=systemd'].map((h) => `${h}:${path}`).join('\n') + `\n0::${unified}\n`;
const v2 = (path: string) => `0::${path}\n`;

describe('Kubernetes', () => {
  const cases: [string, string, string | null][] = [
    ['containerd, systemd driver', `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/cri-containerd-${ID}.scope`, 'containerd'],
    ['containerd, systemd driver, Guaranteed QoS', `/kubepods.slice/kubepods-pod${UID_}.slice/cri-containerd-${ID}.scope`, 'containerd'],
    ['containerd or dockershim, cgroupfs driver', `/kubepods/burstable/pod${UID}/${ID}`, null],
    ['containerd, cgroupfs driver, Guaranteed QoS', `/kubepods/pod${UID}/${ID}`, null],
    ['CRI-O, systemd driver', `/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${UID_}.slice/crio-${ID}.scope`, 'cri-o'],
    ['CRI-O, cgroupfs driver', `/kubepods/besteffort/pod${UID}/crio-${ID}`, 'cri-o'],
    ['Docker (dockershim), systemd driver', `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/docker-${ID}.scope`, 'docker'],
  ];
  for (const [what, path, runtime] of cases) {
    test(`${what}: v2 and v1`, () => {
      const want = { containerId: ID, runtime, podUid: UID, cgroup: path };
      expect(attributeCgroup(v2(path))).toEqual(want);
      expect(attributeCgroup(v1(path))).toEqual(want);
    });
  }

  test('the systemd driver writes the UID with _, reported with -', () => {
    expect(attributePath(`/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod${UID_}.slice`).podUid).toBe(UID);
  });

  test("CRI-O's conmon is the container's monitor, not the container", () => {
    const path = `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/crio-conmon-${ID}.scope`;
    expect(attributeCgroup(v2(path))).toMatchObject({ containerId: ID, runtime: 'conmon', podUid: UID });
  });

  test('read from inside a cgroup namespace (a DaemonSet pod), paths are relative', () => {
    // The scanner in /kubepods/besteffort/pod<other>/<its id> sees a burstable pod's container so:
    expect(attributeCgroup(v2(`/../../../burstable/pod${UID}/${ID}`))).toMatchObject({ containerId: ID, runtime: null, podUid: UID });
    const systemd = `/../../../kubepods-burstable.slice/kubepods-burstable-pod${UID_}.slice/cri-containerd-${ID}.scope`;
    expect(attributeCgroup(v2(systemd))).toMatchObject({ containerId: ID, runtime: 'containerd', podUid: UID });
  });

  test("containerd's CRI with the cgroupfs driver, as the CRI tier makes it here (hybrid v1, a kubelet-shaped cgroup_parent under a prefix)", () => {
    // Copied from /proc/PID/cgroup of a container of test/cri (its ids put in); the kubelet's
    // cgroup_parent /kubepods/besteffort/pod<uid> there sits under the run's own cri-<random>.
    const path = `/cri-ZDWNJB/kubepods/besteffort/pod${UID}/${ID}`;
    const text = [
      '9:name=systemd', '8:pids', '7:blkio', '6:freezer', '5:devices', '4:memory', '3:cpuset', '2:cpuacct', '1:cpu', '0:',
    ].map((h) => `${h}:${path}`).join('\n') + '\n';
    // cgroupfs paths do not name the runtime: containerd and dockershim make the same ones.
    expect(attributeCgroup(text)).toEqual({ containerId: ID, runtime: null, podUid: UID, cgroup: path });
  });

  test('a process in the pod cgroup but in no container has the pod only', () => {
    expect(attributeCgroup(v1(`/kubepods/burstable/pod${UID}`))).toMatchObject({ containerId: null, podUid: UID });
  });
});

describe('Docker and podman outside Kubernetes', () => {
  test('Docker: systemd scope (v2) and cgroupfs /docker/<id> (v1)', () => {
    expect(attributeCgroup(v2(`/system.slice/docker-${ID}.scope`))).toMatchObject({ containerId: ID, runtime: 'docker', podUid: null });
    expect(attributeCgroup(v1(`/docker/${ID}`))).toMatchObject({ containerId: ID, runtime: 'docker', podUid: null });
  });

  test('podman, systemd: rootful, rootless, with the split container sub-cgroup', () => {
    for (const path of [
      `/machine.slice/libpod-${ID}.scope`,
      `/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-${ID}.scope`,
      `/machine.slice/libpod-${ID}.scope/container`,
    ]) expect(attributeCgroup(v2(path)), path).toMatchObject({ containerId: ID, runtime: 'podman', podUid: null });
  });

  test('podman pod, systemd: machine-libpod_pod_<id>.slice', () => {
    const path = `/machine.slice/machine-libpod_pod_${POD_ID}.slice/libpod-${ID}.scope`;
    expect(attributeCgroup(v2(path))).toEqual({ containerId: ID, runtime: 'podman', podUid: POD_ID, cgroup: path });
  });

  test("podman, cgroupfs (this machine's layout, hybrid v1 with an empty unified line)", () => {
    // Copied from /proc/PID/cgroup of a podman container here.
    const text = [
      '9:name=systemd', '8:pids', '7:blkio', '6:freezer', '5:devices', '4:memory', '3:cpuset', '2:cpuacct', '1:cpu', '0:',
    ].map((h) => `${h}:/libpod_parent/libpod-${ID}`).join('\n');
    expect(attributeCgroup(text)).toMatchObject({ containerId: ID, runtime: 'podman', podUid: null });
    expect(attributeCgroup(v1(`/libpod_parent/libpod-${ID}`))).toMatchObject({ containerId: ID, runtime: 'podman' });
  });

  test('podman pod, cgroupfs: /libpod_parent/<pod id>/libpod-<id>', () => {
    expect(attributeCgroup(v2(`/libpod_parent/${POD_ID}/libpod-${ID}`))).toMatchObject({ containerId: ID, runtime: 'podman', podUid: POD_ID });
  });

  test("podman's conmon", () => {
    expect(attributePath(`/machine.slice/libpod-conmon-${ID}.scope`)).toMatchObject({ containerId: ID, runtime: 'conmon' });
  });
});

describe('no container', () => {
  test('host services, sessions and other cgroups name nothing', () => {
    for (const path of [
      '/', '/system.slice/sshd.service', '/user.slice/user-0.slice/session-3.scope', '/init.scope',
      // this machine's sandbox: a 32-hex element is no container id
      '/process_api/816c302f14706147fedfc071581e0045',
      '/libpod_parent/conmon',
      // pod<uid> in a unit's name, or with mixed separators, is no pod
      `/system.slice/pod${UID}.service`,
      `/kubepods/pod${UID_.slice(0, 9)}${UID.slice(9)}`,
    ]) expect(attributeCgroup(v1(path)), path).toMatchObject({ containerId: null, runtime: null, podUid: null });
  });

  test('the line naming the container wins over an empty unified line; garbage does not throw', () => {
    const text = `0::/\n4:memory:/docker/${ID}\nnot a cgroup line\n\n`;
    expect(attributeCgroup(text)).toMatchObject({ containerId: ID, runtime: 'docker', cgroup: `/docker/${ID}` });
    expect(attributeCgroup('')).toEqual({ containerId: null, runtime: null, podUid: null, cgroup: null });
    expect(attributeCgroup('garbage')).toEqual({ containerId: null, runtime: null, podUid: null, cgroup: null });
  });
});
