/** What the worker environment (compatibility.md §2) is built from. */
export interface WorkerEnvSpec {
  endpointId: string;
  podId: string;
  /** The queue routes' base URL, without a trailing slash. */
  queueUrl: string;
  /** The `gpu` query value workers report. */
  gpu: string;
  aiKey: string;
  pingIntervalMs: number;
}

/**
 * The platform's worker variables. `$ID` and `$RUNPOD_POD_ID` stay literal: the worker SDKs substitute them
 * (worker id, job id). These win over the template's and the endpoint's env.
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
    RUNPOD_AI_API_KEY: spec.aiKey,
    RUNPOD_ENDPOINT_ID: spec.endpointId,
    RUNPOD_PING_INTERVAL: String(spec.pingIntervalMs),
  };
}
