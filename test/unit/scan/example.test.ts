// The DaemonSet example and the README's one command must stay runnable: their scanner
// arguments parse, and the example keeps what docs/scan.md promises (hostPID, read-only kubelet
// directories, no root, no capability, limits, scrape annotations on the served port).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { expect, test } from 'vitest';
import { parseScanArgs } from '../../../src/scan/cli';

const ROOT = path.resolve(__dirname, '..', '..', '..');

const yaml = readFileSync(path.join(ROOT, 'examples', 'kubernetes', 'zombie-scanner.yaml'), 'utf8');
/** The example without its comments. */
const spec = yaml.split('\n').filter((line) => !/^\s*#/.test(line)).join('\n');

test('zombie-scanner.yaml: a DaemonSet serving the scan with what it needs and no more', () => {
  expect(spec).toMatch(/^kind: DaemonSet$/m);
  expect(spec).toMatch(/^ {6}hostPID: true$/m);
  const command = JSON.parse(/^\s+command: (\[.*\])$/m.exec(spec)?.[1] ?? 'null') as string[];
  expect(command.slice(0, 2)).toEqual(['sexton', 'scan']);
  const request = parseScanArgs(command.slice(2));
  expect(request.serve).toEqual({ host: '0.0.0.0', port: 9103 });
  expect(spec).toContain(`prometheus.io/port: "${request.serve?.port}"`);
  expect(spec).toContain('prometheus.io/scrape: "true"');
  expect(spec).toMatch(new RegExp(`containerPort: ${request.serve?.port}\\b`));
  // The kubelet's directories, mounted where the scanner looks, read-only.
  for (const dir of [request.podsDir, path.join(request.podsDir, '..', 'containers')]) {
    expect(spec).toMatch(new RegExp(`mountPath: ${dir}\\n\\s+readOnly: true`));
    expect(spec).toMatch(new RegExp(`hostPath:\\n\\s+path: ${dir}\\n`));
  }
  for (const line of ['runAsNonRoot: true', 'allowPrivilegeEscalation: false', 'readOnlyRootFilesystem: true', 'drop: ["ALL"]', 'automountServiceAccountToken: false']) {
    expect(spec).toContain(line);
  }
  expect(spec).not.toMatch(/privileged: true|hostNetwork: true|add: \[/);
  expect(spec).toMatch(/limits:\n\s+cpu: \S+\n\s+memory: \S+/);
});

test("the README's one command to find the leaking pod parses", () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const line = /^kubectl debug node\/NODE .* -- sexton scan (.*)$/m.exec(readme);
  expect(line).not.toBeNull();
  expect(parseScanArgs((line as RegExpExecArray)[1].split(' '))).toMatchObject({ podsDir: '/host/var/log/pods', json: false });
});
