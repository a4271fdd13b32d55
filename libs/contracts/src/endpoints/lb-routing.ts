/**
 * What the processes of a load-balancing (LB) endpoint tell each other on core NATS (docs/adr/0026): best effort
 * and repeated, never recorded. Each message is a fresh statement of the whole state it covers, so a lost one is
 * healed by the next and a new subscriber knows everything within one interval.
 */
export const LbSubjects = {
  /** pod-lifecycle → every gateway replica: one LB worker's health, as its last `GET /ping` said. */
  workerState: 'lb.worker-state',
  /** every gateway replica → the autoscaler and pod-lifecycle: the requests it holds, per endpoint and worker. */
  load: 'lb.load',
} as const;

/**
 * `ready`: `/ping` answered 200 (in rotation); `initializing`: 204; `unhealthy`: anything else or no answer;
 * `draining`: the worker is being stopped (no new requests, the ones in flight finish).
 */
export const LB_WORKER_STATES = ['ready', 'initializing', 'unhealthy', 'draining'] as const;
export type LbWorkerState = (typeof LB_WORKER_STATES)[number];

export interface LbWorkerAnnouncement {
  endpointId: string;
  podId: string;
  /** Where the gateway sends the worker's requests (`http://host:PORT`). */
  url: string;
  state: LbWorkerState;
  /** The statement holds this long; without a newer one the worker leaves the rotation. */
  validForMs: number;
}

export interface LbEndpointLoad {
  endpointId: string;
  /** Requests being answered by a worker. */
  inFlight: number;
  /** Requests waiting for a ready worker (a cold start). */
  waiting: number;
  /** In-flight requests per worker (pod id); workers with none are left out. */
  workers: Record<string, number>;
}

export interface LbLoadReport {
  /** One gateway process (random per start): a newer report of the same gateway replaces the older one. */
  gatewayId: string;
  /** The gateway reports this often: a report older than a few intervals is of a gateway that went away. */
  intervalMs: number;
  endpoints: LbEndpointLoad[];
}

/** The environment a load-balancing worker pod carries: what marks it, and its ports (compatibility with RunPod). */
export const LB_WORKER_ENV = {
  /** `LB` on the worker pods of a load-balancing endpoint: pod-lifecycle checks their health and routes to them. */
  type: 'RUNPOD_ENDPOINT_TYPE',
  port: 'PORT',
  healthPort: 'PORT_HEALTH',
} as const;

/** The worker port when the endpoint's env names none (RunPod's default). */
export const LB_DEFAULT_PORT = 80;

/** A load-balancing worker's ports from its env: PORT (default 80), PORT_HEALTH (default PORT); null if not LB. */
export function lbWorkerPorts(env: Record<string, string>): { port: number; healthPort: number } | null {
  if (env[LB_WORKER_ENV.type] !== 'LB') return null;
  const port = validPort(env[LB_WORKER_ENV.port]) ?? LB_DEFAULT_PORT;
  return { port, healthPort: validPort(env[LB_WORKER_ENV.healthPort]) ?? port };
}

function validPort(value: string | undefined): number | null {
  if (value === undefined || !/^\d{1,5}$/.test(value)) return null;
  const port = Number(value);
  return port >= 1 && port <= 65535 ? port : null;
}
