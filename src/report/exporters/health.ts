// GET /livez and /readyz, the names Kubernetes' own components use: a probe's answer costs the
// pod no process. The state comes from the init (src/init/readiness.ts).
import { DEFAULT_HTTP_LIMITS, HttpLimits, Routes } from './http-server';

/**
 * A probe takes milliseconds and kubelet gives up after timeoutSeconds (1 by default): a
 * connection held longer is a client holding one of the few places, and idle ones past the cap
 * would keep probes out for the whole of the default 10 s. Applies to a port shared with metrics.
 */
export const HEALTH_HTTP_LIMITS: HttpLimits = { ...DEFAULT_HTTP_LIMITS, connectionMs: 3000 };

export interface HealthState {
  /** sexton runs (until its exit): what /livez says. */
  live: boolean;
  ready: boolean;
  /** One line: why not ready, or what the app last said (STATUS=). */
  reason: string;
}

/** Read per request, never from the shared snapshot: a probe right after the stop signal sees it. */
export function healthRoutes(health: () => HealthState): Routes {
  const noStore = { 'Cache-Control': 'no-store' };
  return {
    '/livez': () => (health().live ? { status: 200, headers: noStore, body: 'ok\n' }
      : { status: 503, headers: noStore, body: 'not live\n' }),
    '/readyz': () => {
      const s = health();
      return { status: s.ready ? 200 : 503, headers: noStore, body: `${s.ready ? 'ok' : 'not ready'}: ${s.reason}\n` };
    },
  };
}
