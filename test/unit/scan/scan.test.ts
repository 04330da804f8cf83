// The scanner over a /proc tree of files built in a temp dir (test/support/fake-proc.ts):
// parsing, grouping, attribution, ages, skipped entries. (`sexton scan --proc` itself, its exit
// codes and bad usage, in test/scan/fake-proc.test.ts; the real /proc and real containers in
// test/scan/scan.test.ts and test/containers/scan.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scan } from '../../../src/scan/scan';
import { APP, type FakeProc, makeFakeProc, PODMAN, UID } from '../../support/fake-proc';

let fake: FakeProc;
let proc: string;
let podsDir: string;

beforeAll(() => {
  fake = makeFakeProc();
  ({ proc, podsDir } = fake);
});

afterAll(() => fake.remove());

describe('scan()', () => {
  test('groups zombies by parent, attributes each group, tells the reasons apart', () => {
    const r = scan({ procRoot: proc, podsDir, minAgeSeconds: 0 });
    expect(r.scannedProcesses).toBe(10);
    expect(r.unreadableProcesses).toBe(2);
    expect(r.podsDirFound).toBe(true);
    const byPid = Object.fromEntries(r.groups.map((g) => [g.parent.pid, g]));
    expect(Object.keys(byPid).sort()).toEqual(['10', '20', '30', '40']);
    expect(byPid[10]).toMatchObject({
      parent: { pid: 10, command: 'node server.js --token=s3cret' }, zombies: 2, oldestAgeSeconds: 500,
      containerId: APP, runtime: null, podUid: UID, namespace: 'shop', pod: 'checkout-7d9f8b6c5-x2x9k', container: 'app',
      reason: 'parent-does-not-wait',
    });
    expect(byPid[40]).toMatchObject({ zombies: 1, oldestAgeSeconds: 40, container: 'log-shipper', reason: 'parent-does-not-wait' });
    expect(byPid[20]).toMatchObject({
      zombies: 1, oldestAgeSeconds: 50, containerId: PODMAN, runtime: 'podman', podUid: null, namespace: null, reason: 'pid1-does-not-reap',
    });
    expect(byPid[30]).toMatchObject({ zombies: 1, oldestAgeSeconds: 10, containerId: null, podUid: null, reason: 'parent-does-not-wait' });
    // The biggest leak first.
    expect(r.groups[0].parent.pid).toBe(10);
  });

  test('--min-age leaves out parents whose oldest zombie is younger', () => {
    expect(scan({ procRoot: proc, podsDir, minAgeSeconds: 45 }).groups.map((g) => g.parent.pid).sort()).toEqual([10, 20]);
    expect(scan({ procRoot: proc, podsDir, minAgeSeconds: 501 }).groups).toEqual([]);
  });
});
