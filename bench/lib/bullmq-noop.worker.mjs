// Baseline worker: a BullMQ worker on the local Redis answering every job of QUEUE with its input, in a process
// of its own as our echo workers are. CONCURRENCY jobs at once (default 8).
//
//   REDIS_URL=redis://127.0.0.1:6379 QUEUE=bench CONCURRENCY=8 node bench/lib/bullmq-noop.worker.mjs
import { Worker } from 'bullmq';

const redis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const connection = { host: redis.hostname, port: Number(redis.port || 6379) };
const worker = new Worker(process.env.QUEUE, async (job) => ({ echo: job.data.input }), {
  connection,
  concurrency: Number(process.env.CONCURRENCY ?? 8),
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    void worker.close().then(() => process.exit(0));
  });
}
