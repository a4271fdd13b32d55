import { startWorker } from '../index.js';

interface FailInput {
  message?: string;
  /** `throw` (default): the handler raises; `return`: it returns `{error}`. */
  mode?: 'throw' | 'return';
}

/** Fails every job, by raising or by returning an error. */
startWorker({
  handler: (job) => {
    const input = (job.input ?? {}) as FailInput;
    const message = input.message ?? 'failed on purpose';
    if (input.mode === 'return') return { error: message };
    throw new Error(message);
  },
});
