// /livez and /readyz answered from the readiness state, through the bounded server's routing.
import { expect, it } from 'vitest';
import { healthRoutes } from '../../../../src/report/exporters/health';
import { answerFor } from '../../../../src/report/exporters/http-server';

it('answers /readyz and /livez from the state', () => {
  let ready = true;
  const routes = healthRoutes(() => ({ live: true, ready, reason: ready ? 'the main child runs' : 'stopping' }));
  const get = (path: string) => answerFor(routes, 'GET', `${path}?verbose`, {});
  expect(get('/readyz')).toMatchObject({ status: 200, body: 'ok: the main child runs\n' });
  ready = false;
  expect(get('/readyz')).toMatchObject({ status: 503, body: 'not ready: stopping\n' });
  expect(get('/livez')).toMatchObject({ status: 200, body: 'ok\n' });
  expect(answerFor(routes, 'POST', '/readyz', {}).status).toBe(405);
});
