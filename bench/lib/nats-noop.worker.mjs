// Baseline worker of the sequential job round trip: answers every NATS request on SUBJECT with a COMPLETED job
// echoing its input, as the no-op echo worker does for our /runsync.
import { connect } from '@nats-io/transport-node';

const nc = await connect({ servers: process.env.NATS_URL.split(','), name: 'bench-nats-noop-worker' });
nc.subscribe(process.env.SUBJECT, {
  callback: (error, msg) => {
    if (error) return;
    const job = msg.json();
    msg.respond(JSON.stringify({ status: 'COMPLETED', output: { echo: job.input } }));
  },
});
await nc.flush();
process.stdout.write('ready\n');
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    void nc.drain().then(() => process.exit(0));
  });
}
