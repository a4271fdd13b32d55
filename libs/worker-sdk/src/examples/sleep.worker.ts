import { setTimeout as sleep } from 'node:timers/promises';
import { startWorker } from '../index.js';

interface SleepInput {
  ms?: number;
  progress?: boolean;
}

/** Sleeps `input.ms` (default 1000), reporting progress halfway when asked; stops at once on job-stop. */
startWorker({
  handler: async (job) => {
    const input = (job.input ?? {}) as SleepInput;
    const ms = input.ms ?? 1000;
    process.stdout.write(`started ${job.id}\n`);
    job.signal.addEventListener('abort', () => process.stdout.write(`stopped ${job.id}\n`));
    await sleep(ms / 2, undefined, { signal: job.signal });
    if (input.progress) await job.progress({ halfway: true });
    await sleep(ms / 2, undefined, { signal: job.signal });
    return { slept: ms };
  },
});
