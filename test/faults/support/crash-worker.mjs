// A worker process for the fault suite (test/faults/workers.fault-spec.ts), on @app/worker-sdk: it prints
// `started <job id>` for every job it takes, dies at once (SIGKILL, no result, no goodbye ping) on a job whose input
// says `crash: true`, and answers any other job with its input after `input.ms` (default 0).
import { setTimeout as sleep } from 'node:timers/promises';
import { startWorker } from '@app/worker-sdk';

startWorker({
  handler: async (job) => {
    const input = job.input ?? {};
    process.stdout.write(`started ${job.id}\n`);
    if (input.crash) process.kill(process.pid, 'SIGKILL');
    if (input.ms) await sleep(input.ms, undefined, { signal: job.signal });
    return input;
  },
});
