// A worker process of the randomized history test (random-history.fault-spec.ts), on @app/worker-sdk. Per job
// input: `crash: true` dies at once (SIGKILL, no result: its jobs are WORKER_LOST), `fail: true` throws (FAILED),
// `stream: n` yields n chunks (GET /stream), `ms` sleeps first (a cancel or an executionTimeout stops it: job-stop
// aborts the signal), anything else answers its input.
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorker } from '@app/worker-sdk';

async function* chunks(job, count) {
  for (let index = 0; index < count; index++) {
    if (job.signal.aborted) return;
    yield { index };
  }
}

startWorker({
  log: () => undefined,
  handler: async (job) => {
    const input = job.input ?? {};
    process.stdout.write(`started ${job.id}\n`);
    if (input.crash) process.kill(process.pid, 'SIGKILL');
    if (input.ms) await sleep(input.ms, undefined, { signal: job.signal });
    if (input.fail) throw new Error(`failed on purpose (${job.id})`);
    if (input.stream) return chunks(job, input.stream);
    return input;
  },
});
