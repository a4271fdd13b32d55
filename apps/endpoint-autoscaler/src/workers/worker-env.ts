import { LB_DEFAULT_PORT, LB_WORKER_ENV, type EndpointType, type SealedEnv } from '@app/contracts';

/** What the worker environment (compatibility.md §2) is built from. */
export interface WorkerEnvSpec {
  endpointId: string;
  podId: string;
  /** The queue routes' base URL, without a trailing slash. */
  queueUrl: string;
  /** The `gpu` query value workers report. */
  gpu: string;
  pingIntervalMs: number;
  /** A load-balancing endpoint's workers also get their type and ports. */
  type: EndpointType;
  /** The endpoint's own env (PORT and PORT_HEALTH are the user's to choose). */
  endpointEnv: Record<string, string>;
}

/** The variable carrying the workers' API key: only ever sealed on its way to the runtime (`workerSecretEnv`). */
export const WORKER_KEY_ENV = 'RUNPOD_AI_API_KEY';

/**
 * The platform's worker variables, but the key. `$ID` and `$RUNPOD_POD_ID` stay literal: the worker SDKs
 * substitute them (worker id, job id). These win over the template's and the endpoint's env.
 */
export function workerEnv(spec: WorkerEnvSpec): Record<string, string> {
  const base = `${spec.queueUrl.replace(/\/+$/, '')}/v2/${spec.endpointId}`;
  const gpu = encodeURIComponent(spec.gpu);
  return {
    RUNPOD_WEBHOOK_GET_JOB: `${base}/job-take/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_POST_OUTPUT: `${base}/job-done/$RUNPOD_POD_ID/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_POST_STREAM: `${base}/job-stream/$RUNPOD_POD_ID/$ID?gpu=${gpu}`,
    RUNPOD_WEBHOOK_PING: `${base}/ping/$RUNPOD_POD_ID`,
    RUNPOD_POD_ID: spec.podId,
    RUNPOD_ENDPOINT_ID: spec.endpointId,
    RUNPOD_PING_INTERVAL: String(spec.pingIntervalMs),
    ...(spec.type === 'LB' ? lbEnv(spec.endpointEnv) : {}),
  };
}

/**
 * A load-balancing worker serves HTTP on PORT (80 unless the endpoint's env says otherwise) and answers `GET /ping`
 * on PORT_HEALTH (PORT unless set); RUNPOD_ENDPOINT_TYPE=LB tells pod-lifecycle to check its health and tell the
 * gateways where it is (docs/adr/0026).
 */
function lbEnv(endpointEnv: Record<string, string>): Record<string, string> {
  const port = endpointEnv[LB_WORKER_ENV.port] ?? String(LB_DEFAULT_PORT);
  return {
    [LB_WORKER_ENV.type]: 'LB',
    [LB_WORKER_ENV.port]: port,
    [LB_WORKER_ENV.healthPort]: endpointEnv[LB_WORKER_ENV.healthPort] ?? port,
  };
}

/**
 * The workers' key as the gateway sealed it (bound to the endpoint id), passed on unopened: the autoscaler never
 * sees it in clear, and the pod create command records only the sealed form (docs/adr/0015).
 */
export function workerSecretEnv(endpoint: { id: string; aiKeySealed: string }): SealedEnv {
  return { [WORKER_KEY_ENV]: { sealed: endpoint.aiKeySealed, context: endpoint.id } };
}
