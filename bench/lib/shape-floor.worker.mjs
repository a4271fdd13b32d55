// The shape's floor, worker side (see shape-floor.edge.mjs): SLOTS slots, each on kept-alive node:http connections
// as the SDK's client is, each a long-poll take and then the job's done with its input echoed, again and again.
//
//   EDGE_URL=http://127.0.0.1:8097 WORKER_ID=floor-worker SLOTS=8 node bench/lib/shape-floor.worker.mjs
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true });
const base = process.env.EDGE_URL;
const workerId = process.env.WORKER_ID;

/** One request; resolves { status, json } (json null for an empty body). */
function call(method, path, body) {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      `${base}${path}`,
      {
        method,
        agent,
        headers:
          text === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
      },
      (response) => {
        let data = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (data += chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode, json: data ? JSON.parse(data) : null }),
        );
      },
    );
    request.on('error', reject);
    request.end(text);
  });
}

for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => process.exit(0));

/** One slot's loop, as its own worker id (a take leases to the worker that asked). */
async function slot(id) {
  for (;;) {
    const taken = await call('GET', `/take/${id}`);
    if (taken.status !== 200 || !taken.json) continue;
    const done = await call('POST', `/done/${id}/${taken.json.id}`, { output: { echo: taken.json.input } });
    if (done.status !== 200)
      throw new Error(`done of ${taken.json.id}: HTTP ${done.status} ${JSON.stringify(done.json)}`);
  }
}

process.stdout.write('ready\n');
const slots = Number(process.env.SLOTS ?? 1);
await Promise.all(Array.from({ length: slots }, (_, n) => slot(slots === 1 ? workerId : `${workerId}-${n}`)));
