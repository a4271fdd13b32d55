// Baseline server of the sequential job round trip: a bare Fastify route that hands the request to a worker by a
// bare NATS request-reply and answers with its reply. What the smallest possible "/runsync" over NATS costs: one
// HTTP hop, one NATS hop to another process and back, no persistence, no auth, no validation.
//
//   HTTP_PORT=8098 NATS_URL=nats://127.0.0.1:4222 SUBJECT=bench.noop node bench/lib/bare-fastify-nats.server.mjs
// and the worker: NATS_URL=... SUBJECT=bench.noop node bench/lib/nats-noop.worker.mjs
import { connect } from '@nats-io/transport-node';
import Fastify from 'fastify';

const nc = await connect({ servers: process.env.NATS_URL.split(','), name: 'bench-bare-fastify' });
const subject = process.env.SUBJECT;
const app = Fastify({ logger: false });

app.get('/readyz', async () => ({ status: 'ok' }));
app.post('/runsync', async (request, reply) => {
  const answer = await nc.request(subject, JSON.stringify(request.body), { timeout: 30_000 });
  return reply.type('application/json').send(answer.string());
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => nc.drain())
      .then(() => process.exit(0));
  });
}
await app.listen({ port: Number(process.env.HTTP_PORT), host: '127.0.0.1' });
