// The addon's socket dump behind its typed boundary (a stand-in addon: the rows are what it is given).
import { expect, test } from 'vitest';
import { TCP_LISTEN, tcpSockets } from '../../../src/platform/tcp-sockets';

test("the addon's socket dump behind its typed boundary: the limit checked, the rows decoded", () => {
  let asked = 0;
  const fake = { tcpSockets: (limit: number) => ((asked = limit), { truncated: true, fields: new Float64Array([10, 8080, 7, 0, 2, 1, 8080, 9, 1234, 0]) }) };
  for (const bad of [0, -1, 1.5, NaN, 2 ** 20 + 1]) expect(() => tcpSockets(fake, bad)).toThrow(TypeError);
  expect(asked).toBe(0);
  expect(tcpSockets(fake, 100)).toEqual({
    truncated: true,
    sockets: [
      { state: TCP_LISTEN, localPort: 8080, cookie: 7, bytesReceived: 0, queued: 2 },
      { state: 1, localPort: 8080, cookie: 9, bytesReceived: 1234, queued: 0 },
    ],
  });
  expect(tcpSockets({ tcpSockets: () => 24 }, 1)).toBe(24);  // EMFILE: the errno, as is
});
