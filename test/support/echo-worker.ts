import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A worker speaking the protocol of compatibility.md §2 with nothing but the injected environment (and
 * ECHO_START_DELAY_MS, how long it loads before its first take, as a model would; ECHO_CRASH, a sentence it prints
 * to stderr before it exits with code 3 at start, as a worker whose model does not load): long-polls
 * job-take, sleeps `input.sleepMs` (printing `job <id> started` and `job <id> done` around it), posts `{output: {echo: input}}` to job-done (form content type, as the Python
 * SDK does), pings every RUNPOD_PING_INTERVAL. It runs as a real process through the local runtime driver.
 */
const WORKER_SOURCE = `
const env = process.env;
const podId = env.RUNPOD_POD_ID;
const auth = { authorization: env.RUNPOD_AI_API_KEY };
const takeUrl = env.RUNPOD_WEBHOOK_GET_JOB.replace('$ID', podId);
const doneUrl = (jobId) => env.RUNPOD_WEBHOOK_POST_OUTPUT.replace('$RUNPOD_POD_ID', podId).replace('$ID', jobId);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A worker that loads something first (a model, say) before it asks for a job.
await sleep(Number(env.ECHO_START_DELAY_MS || 0));
if (env.ECHO_CRASH) {
  console.log('loading the model');
  console.error(env.ECHO_CRASH);
  await sleep(300);
  process.exit(3);
}
let current = null;
setInterval(() => {
  const url = env.RUNPOD_WEBHOOK_PING.replace('$RUNPOD_POD_ID', podId) + (current ? '?job_id=' + current : '');
  fetch(url, { headers: auth }).catch(() => {});
}, Number(env.RUNPOD_PING_INTERVAL || 10000));
for (;;) {
  try {
    const res = await fetch(takeUrl + '&job_in_progress=0', { headers: auth });
    if (res.status !== 200) { await res.text(); if (res.status !== 204) await sleep(200); continue; }
    const body = await res.json();
    const job = Array.isArray(body) ? body[0] : body;
    if (!job) continue;
    current = job.id;
    console.log('job ' + job.id + ' started');
    await sleep(Number(job.input?.sleepMs ?? 0));
    await fetch(doneUrl(job.id) + '&isStream=false', {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' },
      body: JSON.stringify({ output: { echo: job.input, workerId: podId } }),
    });
    console.log('job ' + job.id + ' done');
    current = null;
  } catch { await sleep(200); }
}
`;

/**
 * Writes the worker and a local image catalog naming it `test/echo-worker` into `dir`; returns the catalog's path
 * (LOCAL_IMAGE_CATALOG of pod-lifecycle's local runtime).
 */
export function echoWorkerCatalog(dir: string): string {
  writeFileSync(join(dir, 'worker.mjs'), WORKER_SOURCE);
  const catalog = join(dir, 'images.json');
  writeFileSync(
    catalog,
    JSON.stringify({ images: { 'test/echo-worker': { command: ['{node}', join(dir, 'worker.mjs')] } } }),
  );
  return catalog;
}
