// Which container and pod a process belongs to, read from its /proc/PID/cgroup alone: every
// runtime names the cgroup it makes after the container's id, and the kubelet after the pod's UID.

export type Runtime = 'containerd' | 'cri-o' | 'docker' | 'podman' | 'conmon';

export interface Attribution {
  containerId: string | null;
  runtime: Runtime | null;
  /** Kubernetes pod UID (with dashes), or the podman pod's id when runtime is podman. */
  podUid: string | null;
  /** The cgroup path the attribution was read from (the unified one when nothing matched). */
  cgroup: string | null;
}

const ID = '([0-9a-f]{64})';
/** Segment → runtime and id: systemd's scopes and cgroupfs's directories. */
const SCOPES: [RegExp, Runtime][] = [
  [new RegExp(`^cri-containerd-${ID}\\.scope$`), 'containerd'],
  [new RegExp(`^nerdctl-${ID}\\.scope$`), 'containerd'],
  [new RegExp(`^crio-conmon-${ID}(?:\\.scope)?$`), 'conmon'],
  [new RegExp(`^crio-${ID}(?:\\.scope)?$`), 'cri-o'],
  [new RegExp(`^docker-${ID}\\.scope$`), 'docker'],
  [new RegExp(`^libpod-conmon-${ID}(?:\\.scope)?$`), 'conmon'],
  [new RegExp(`^libpod-${ID}(?:\\.scope)?$`), 'podman'],
];
const BARE_ID = new RegExp(`^${ID}$`);
const PODMAN_POD = new RegExp(`^(?:machine-)?libpod_pod_${ID}(?:\\.slice)?$`);
/**
 * cgroupfs `pod<uid>`; systemd `kubepods[-<qos>]-pod<uid with _>.slice` (systemd reserves `-`).
 * Not anchored to a `kubepods` element: read from inside a cgroup namespace (a DaemonSet's
 * pod), other pods' paths are relative, `/../../burstable/pod<uid>/<id>`.
 */
const KUBE_POD = new RegExp('^(?:kubepods(?:-[a-z]+)?-)?pod('
  + '[0-9a-f]{8}([-_])[0-9a-f]{4}\\2[0-9a-f]{4}\\2[0-9a-f]{4}\\2[0-9a-f]{12})(?:\\.slice)?$');

const NONE: Attribution = { containerId: null, runtime: null, podUid: null, cgroup: null };

/** What one cgroup path says; fields it does not name stay null. */
export function attributePath(path: string): Attribution {
  const out: Attribution = { ...NONE, cgroup: path };
  const segments = path.split('/').filter(Boolean);
  segments.forEach((segment, i) => {
    const previous = segments[i - 1] ?? '';
    for (const [pattern, runtime] of SCOPES) {
      const m = pattern.exec(segment);
      if (m) return Object.assign(out, { containerId: m[1], runtime });
    }
    const pod = PODMAN_POD.exec(segment);
    if (pod) return Object.assign(out, { podUid: pod[1], runtime: out.runtime ?? 'podman' });
    const kubePod = KUBE_POD.exec(segment);
    if (kubePod) return Object.assign(out, { podUid: kubePod[1].replace(/_/g, '-') });
    const bare = BARE_ID.exec(segment);
    if (!bare) return;
    // podman's cgroupfs pods: /libpod_parent/<pod id>/libpod-<id>.
    if (previous === 'libpod_parent' && i < segments.length - 1) return Object.assign(out,
      { podUid: bare[1], runtime: 'podman' });
    // /docker/<id>; under kubepods the runtime (containerd, dockershim) is not in the path.
    Object.assign(out, { containerId: bare[1], runtime: previous === 'docker' ? 'docker' : out.runtime });
  });
  return out;
}

const score = (a: Attribution) => (a.containerId ? 2 : 0) + (a.podUid ? 1 : 0);

/**
 * The attribution of a /proc/PID/cgroup text, v1 (one line per hierarchy) or v2 (`0::path`):
 * the line that names the most wins; on a tie the unified line, then the first.
 */
export function attributeCgroup(text: string): Attribution {
  let best: Attribution | undefined;
  const lines = text.split('\n').filter(Boolean);
  const ordered = [...lines.filter((l) => l.startsWith('0::')), ...lines.filter((l) => !l.startsWith('0::'))];
  for (const line of ordered) {
    const second = line.indexOf(':', line.indexOf(':') + 1);
    if (second < 0) continue;
    const found = attributePath(line.slice(second + 1));
    if (!best || score(found) > score(best)) best = found;
  }
  return best ?? { ...NONE };
}
