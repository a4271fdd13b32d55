// What the autoscaler measures share (bench/scenarios/autoscaler.mjs, bench/scale/autoscaler.mjs): the job requests
// of a burst (jobs-queue.mjs sends its own with them), the waits, and the baseline's free-running /health poller.

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` every `everyMs` until it answers something truthy (that value), or throws after `timeoutMs`. */
export async function until(what, probe, timeoutMs = 60_000, everyMs = 100) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** A request of the queue API (/v2/{id}/...) with the user's key; throws unless HTTP 200. */
export async function jobRequest(method, url, key, body) {
  const response = await fetch(url, {
    method,
    headers: { authorization: key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await response.json();
  if (response.status !== 200) {
    throw new Error(`${method} ${url}: HTTP ${response.status} ${JSON.stringify(json)}`);
  }
  return json;
}

/** The promise, or an error naming `what` after `ms`. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The free-running poller of the baseline: GET `base`/health, then wait `tickMs`, forever (until stopped).
 * `next()` resolves the time of its first answer after the call that shows the burst: jobs queued or in
 * progress, or more completed than it knew of (a worker, once there, can take a burst between two polls).
 */
export function startPoller(base, key, tickMs) {
  let stopped = false;
  let waiter = null;
  let completedBefore = 0;
  const loop = (async () => {
    while (!stopped) {
      const health = await jobRequest('GET', `${base}/health`, key).catch(() => null);
      if (health) {
        const { inQueue, inProgress, completed } = health.jobs;
        if (waiter && (inQueue > 0 || inProgress > 0 || completed > waiter.completedBefore)) {
          waiter.resolve(performance.now());
          waiter = null;
        }
        completedBefore = completed;
      }
      await sleep(tickMs);
    }
  })();
  return {
    next: () => new Promise((resolve) => (waiter = { resolve, completedBefore })),
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
