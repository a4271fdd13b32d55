import { LB_WORKER_ENV, type EndpointType, type SealedEnv } from '@app/contracts';

/** What the worker environment (compatibility.md §2) is built from. */
export interface WorkerEnvSpec {
  endpointId: string;
  podId: string;
  /** The queue routes' base URL, without a trailing slash. */
  queueUrl: string;
  /** The `gpu` query value workers report. */
  gpu: string;
  pingIntervalMs: number;
  /** A load-balancing endpoint's workers are marked as such. */
  type: EndpointType;
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
    // RUNPOD_ENDPOINT_TYPE=LB: pod-lifecycle checks the worker's health and tells the gateways where it is
    // (docs/adr/0026). PORT and PORT_HEALTH stay the template's and the endpoint's to choose (pod-lifecycle fills
    // in the defaults, 80 and PORT).
    ...(spec.type === 'LB' ? { [LB_WORKER_ENV.type]: 'LB' } : {}),
  };
}

/**
 * The workers' key as the gateway sealed it (bound to the endpoint id), passed on unopened: the autoscaler never
 * sees it in clear, and the pod create command records only the sealed form (docs/adr/0015).
 */
export function workerSecretEnv(endpoint: { id: string; aiKeySealed: string }): SealedEnv {
  return { [WORKER_KEY_ENV]: { sealed: endpoint.aiKeySealed, context: endpoint.id } };
}
