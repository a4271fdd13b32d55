// The shape's floor, worker side (see shape-floor.edge.mjs): SLOTS slots, each on kept-alive node:http connections
// as the SDK's client is, each a long-poll take and then the job's done with its input echoed, again and again.
//
//   EDGE_URL=http://127.0.0.1:8097 WORKER_ID=floor-worker SLOTS=8 node bench/lib/shape-floor.worker.mjs
import { requestJson } from './jobs-load.mjs';

const base = process.env.EDGE_URL;
const workerId = process.env.WORKER_ID;

for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));

/** One slot's loop, as its own worker id (a take leases to the worker that asked). */
async function slot(id) {
  for (;;) {
    const taken = await requestJson(`${base}/take/${id}`);
    if (taken.status !== 200 || !taken.json) continue;
    const done = await requestJson(`${base}/done/${id}/${taken.json.id}`, {
      method: 'POST',
      body: JSON.stringify({ output: { echo: taken.json.input } }),
    });
    if (done.status !== 200) {
      throw new Error(`done of ${taken.json.id}: HTTP ${done.status} ${JSON.stringify(done.json)}`);
    }
  }
}

process.stdout.write('ready\n');
const slots = Number(process.env.SLOTS ?? 1);
await Promise.all(Array.from({ length: slots }, (_, n) => slot(slots === 1 ? workerId : `${workerId}-${n}`)));
