// The shape's floor, owner side (see shape-floor.edge.mjs for the whole): applies the commands recorded in the
// FLOOR_CMDS stream, one at a time in stream order, each as ONE autocommitted Postgres statement that writes the
// effect, the processed-command row and the outbox row together (a single statement is its own transaction:
// one round trip and one WAL flush, the least "effect + processed row + outbox in one transaction" can cost).
// After the commit: the outcome to the issuer over core NATS, then the ack. The outbox is relayed to FLOOR_EVTS
// 20 ms after a commit, as our relay does for hinted events.
//
// The rules a real owner checks in its handler (the job leased to this worker, not finished already) are in the
// statements' WHERE clauses instead: the floor does no read before it writes.
//
//   DATABASE_URL=... NATS_URL=... STREAM=<prefix>_FLOOR_CMDS EVENTS=<prefix>_floor.evt node shape-floor.owner.mjs
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

const RELAY_DELAY_MS = 20;
const CONSUMER = 'floor-owner';

const nc = await connect({ servers: process.env.NATS_URL.split(','), name: 'bench-floor-owner' });
const js = jetstream(nc);
const sql = new pg.Client({ connectionString: process.env.DATABASE_URL });
await sql.connect();
const stream = process.env.STREAM;
const events = process.env.EVENTS;

// Each statement answers the command's outcome; ON CONFLICT on the processed row makes a redelivery a no-op.
const STATEMENTS = {
  // A submit: the job, queued or (a poll was waiting) leased to that worker at once.
  submit: {
    name: 'floor-submit',
    text: `WITH p AS (
             INSERT INTO shape_floor.processed (command_id, outcome) VALUES ($1, $2::jsonb)
             ON CONFLICT DO NOTHING RETURNING command_id),
           j AS (
             INSERT INTO shape_floor.jobs (id, status, worker_id, input, queued_at)
             SELECT $3, CASE WHEN $4::text IS NULL THEN 'IN_QUEUE' ELSE 'IN_PROGRESS' END, $4, $5::jsonb, $6 FROM p
             RETURNING id)
           INSERT INTO shape_floor.outbox (subject, payload) SELECT $7, $8::json FROM j`,
  },
  // A take: the oldest queued job, leased to the worker.
  take: {
    name: 'floor-take',
    text: `WITH picked AS (
             SELECT id FROM shape_floor.jobs WHERE status = 'IN_QUEUE' ORDER BY queued_at, id LIMIT 1
             FOR UPDATE SKIP LOCKED),
           j AS (
             UPDATE shape_floor.jobs SET status = 'IN_PROGRESS', worker_id = $2 FROM picked
             WHERE jobs.id = picked.id RETURNING jobs.id, jobs.input),
           p AS (
             INSERT INTO shape_floor.processed (command_id, outcome)
             SELECT $1, jsonb_build_object('ok', true, 'value', (SELECT to_jsonb(j) FROM j))
             ON CONFLICT DO NOTHING)
           SELECT id, input FROM j`,
  },
  // A done: the job finished with its output, if it is still leased to this worker.
  done: {
    name: 'floor-done',
    text: `WITH j AS (
             UPDATE shape_floor.jobs SET status = 'COMPLETED', output = $4::jsonb, finished_at = $5
             WHERE id = $2 AND status = 'IN_PROGRESS' AND worker_id = $3 RETURNING id),
           p AS (
             INSERT INTO shape_floor.processed (command_id, outcome)
             SELECT $1, jsonb_build_object('ok', EXISTS (SELECT 1 FROM j)) ON CONFLICT DO NOTHING)
           INSERT INTO shape_floor.outbox (subject, payload) SELECT $6, $7::json FROM j RETURNING id`,
  },
};

/** Applies one command; resolves its outcome. */
async function apply(envelope) {
  const { commandId, issuedAt, subject, payload } = envelope;
  if (subject === 'submit') {
    const outcome = {
      ok: true,
      value: { id: payload.jobId, status: payload.workerId ? 'IN_PROGRESS' : 'IN_QUEUE' },
    };
    const event = { eventId: commandId, occurredAt: issuedAt, jobId: payload.jobId };
    await sql.query({
      ...STATEMENTS.submit,
      values: [
        commandId,
        JSON.stringify(outcome),
        payload.jobId,
        payload.workerId ?? null,
        JSON.stringify(payload.input ?? null),
        issuedAt,
        `${events}.queued`,
        JSON.stringify(event),
      ],
    });
    return outcome;
  }
  if (subject === 'take') {
    const { rows } = await sql.query({ ...STATEMENTS.take, values: [commandId, payload.workerId] });
    return { ok: true, value: rows[0] ?? null };
  }
  const event = { eventId: commandId, occurredAt: issuedAt, jobId: payload.jobId, status: 'COMPLETED' };
  const { rowCount } = await sql.query({
    ...STATEMENTS.done,
    values: [
      commandId,
      payload.jobId,
      payload.workerId,
      JSON.stringify(payload.output ?? null),
      issuedAt,
      `${events}.changed`,
      JSON.stringify(event),
    ],
  });
  return rowCount === 1
    ? { ok: true, value: { id: payload.jobId, status: 'COMPLETED', output: payload.output } }
    : { ok: false, error: { code: 'CONFLICT', message: `job ${payload.jobId} is not leased to the worker` } };
}

let relayTimer = null;
let relaying = Promise.resolve();

/** The outbox's unpublished rows to FLOOR_EVTS (awaiting JetStream's acks), then marked. */
async function relay() {
  relayTimer = null;
  const { rows } = await sql.query({
    name: 'floor-relay-claim',
    text: 'SELECT id, subject, payload FROM shape_floor.outbox WHERE published_at IS NULL ORDER BY id LIMIT 256',
  });
  if (!rows.length) return;
  await Promise.all(
    rows.map((row) => js.publish(row.subject, JSON.stringify(row.payload), { msgID: `floor-evt-${row.id}` })),
  );
  await sql.query({
    name: 'floor-relay-mark',
    text: 'UPDATE shape_floor.outbox SET published_at = now() WHERE id = ANY($1::bigint[])',
    values: [rows.map((row) => row.id)],
  });
}

function kickRelay() {
  relayTimer ??= setTimeout(() => {
    relaying = relaying.then(relay).catch((error) => console.error(`relay: ${error.message}`));
  }, RELAY_DELAY_MS);
}

const jsm = await jetstreamManager(nc);
await jsm.consumers.add(stream, { durable_name: CONSUMER, ack_policy: AckPolicy.Explicit });
const consumer = await js.consumers.get(stream, CONSUMER);
const messages = await consumer.consume({ max_messages: 64 });
process.stdout.write('ready\n');

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    messages.stop();
    void relaying
      .then(() => nc.drain())
      .then(() => sql.end())
      .finally(() => process.exit(0));
  });
}

for await (const msg of messages) {
  const envelope = msg.json();
  let outcome;
  try {
    outcome = await apply(envelope);
  } catch (error) {
    console.error(`${envelope.subject} ${envelope.commandId}: ${error.message}`);
    msg.nak(250);
    continue;
  }
  const to = msg.headers?.get('Outcome-To');
  if (to) nc.publish(`${to}.${envelope.commandId}`, JSON.stringify(outcome));
  msg.ack();
  if (envelope.subject !== 'take') kickRelay();
}
