import { startWorker } from '../index.js';

/** Answers every job with its input. */
startWorker({ handler: (job) => job.input });
