// GET /livez and /readyz, the names Kubernetes' own components use: a probe's answer costs the
// pod no process. The state comes from the init (src/init/readiness.ts).
import type { Routes } from './http-endpoint';

export interface HealthState {
  /** sexton runs (until its exit): what /livez says. */
  live: boolean;
  ready: boolean;
  /** One line: why not ready, or what the app last said (STATUS=). */
  reason: string;
}

export function healthRoutes(health: () => HealthState): Routes {
  return new Map([
    ['/livez', () => (health().live ? { status: 200, body: 'ok\n' } : { status: 503, body: 'not live\n' })],
    ['/readyz', () => {
      const s = health();
      return { status: s.ready ? 200 : 503, body: `${s.ready ? 'ok' : 'not ready'}: ${s.reason}\n` };
    }],
  ]);
}
