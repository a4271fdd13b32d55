// The shape's floor, owner side (see shape-floor.edge.mjs for the whole): applies the commands recorded in its
// commands stream in stream order, each as ONE Postgres statement that writes the effect, the processed-command row
// and the outbox row together. What is buffered when it is free (at most BATCH_MAX) goes in one transaction, its
// statements pipelined (BEGIN, the statements, COMMIT in one round trip and one WAL flush); a lone command is one
// autocommitted statement (its own transaction). After the commit: each outcome to its issuer over core NATS, then
// the acks. The outbox is relayed to the events stream 20 ms after a commit, as our relay does for hinted events.
//
// The rules a real owner checks in its handler (the job leased to this worker, not finished already) are in the
// statements' WHERE clauses instead: the floor does no read before it writes.
//
//   DATABASE_URL=... NATS_URL=... SCHEMA=shape_floor_seq STREAM=<prefix>_FLOOR_SEQ_CMDS EVENTS=<prefix>_floor_seq.evt \
//   node bench/lib/shape-floor.owner.mjs
import { AckPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import pg from 'pg';

const RELAY_DELAY_MS = 20;
const BATCH_MAX = 64;
const CONSUMER = 'floor-owner';

const nc = await connect({ servers: process.env.NATS_URL.split(','), name: 'bench-floor-owner' });
const js = jetstream(nc);
// Pipelined: a batch's statements leave without waiting for each other's answers.
const sql = new pg.Client({ connectionString: process.env.DATABASE_URL, pipeline: true });
await sql.connect();
// The relay's own connection, as our relay has: its statements never land inside a batch's transaction.
const relaySql = new pg.Client({ connectionString: process.env.DATABASE_URL });
await relaySql.connect();
const schema = process.env.SCHEMA;
const stream = process.env.STREAM;
const events = process.env.EVENTS;

// Each statement answers the command's outcome; ON CONFLICT on the processed row makes a redelivery a no-op. A
// submit and a done carry many jobs (the edge batches them), each written by one statement for all of its jobs.
const STATEMENTS = {
  // Submitted jobs: each queued or (a poll was waiting) leased to that worker at once; one event for all.
  submit: {
    name: 'floor-submit',
    text: `WITH p AS (
             INSERT INTO ${schema}.processed (command_id, outcome) VALUES ($1, $2::jsonb)
             ON CONFLICT DO NOTHING RETURNING command_id),
           j AS (
             INSERT INTO ${schema}.jobs (id, status, worker_id, input, queued_at)
             SELECT x.id, CASE WHEN x.worker_id IS NULL THEN 'IN_QUEUE' ELSE 'IN_PROGRESS' END, x.worker_id,
                    x.input, $3
               FROM p, jsonb_to_recordset($4::jsonb) AS x(id text, worker_id text, input jsonb)
             RETURNING id)
           INSERT INTO ${schema}.outbox (subject, payload) SELECT $5, $6::json WHERE EXISTS (SELECT 1 FROM j)`,
  },
  // A take: the oldest queued job, leased to the worker.
  take: {
    name: 'floor-take',
    text: `WITH picked AS (
             SELECT id FROM ${schema}.jobs WHERE status = 'IN_QUEUE' ORDER BY queued_at, id LIMIT 1
             FOR UPDATE SKIP LOCKED),
           j AS (
             UPDATE ${schema}.jobs SET status = 'IN_PROGRESS', worker_id = $2 FROM picked
             WHERE jobs.id = picked.id RETURNING jobs.id, jobs.input),
           p AS (
             INSERT INTO ${schema}.processed (command_id, outcome)
             SELECT $1, jsonb_build_object('ok', true, 'value', (SELECT to_jsonb(j) FROM j))
             ON CONFLICT DO NOTHING)
           SELECT id, input FROM j`,
  },
  // Done posts: each job finished with its output if it is still leased to the post's worker; one event for all.
  done: {
    name: 'floor-done',
    text: `WITH x AS (
             SELECT * FROM jsonb_to_recordset($2::jsonb) AS x(job_id text, worker_id text, output jsonb)),
           j AS (
             UPDATE ${schema}.jobs SET status = 'COMPLETED', output = x.output, finished_at = $3 FROM x
             WHERE jobs.id = x.job_id AND jobs.status = 'IN_PROGRESS' AND jobs.worker_id = x.worker_id
             RETURNING jobs.id),
           p AS (
             INSERT INTO ${schema}.processed (command_id, outcome)
             SELECT $1, jsonb_build_object('ok', true, 'value', (SELECT jsonb_agg(id) FROM j))
             ON CONFLICT DO NOTHING),
           o AS (
             INSERT INTO ${schema}.outbox (subject, payload) SELECT $4, $5::json WHERE EXISTS (SELECT 1 FROM j))
           SELECT id FROM j`,
  },
};

/** A command's statement and how its result reads as the command's outcome. */
function statementOf(envelope) {
  const { commandId, issuedAt, subject, payload } = envelope;
  if (subject === 'submit') {
    const outcome = {
      ok: true,
      value: payload.jobs.map((job) => ({ id: job.id, status: job.workerId ? 'IN_PROGRESS' : 'IN_QUEUE' })),
    };
    const event = { eventId: commandId, occurredAt: issuedAt, jobIds: payload.jobs.map((job) => job.id) };
    return {
      query: {
        ...STATEMENTS.submit,
        values: [
          commandId,
          JSON.stringify(outcome),
          issuedAt,
          JSON.stringify(
            payload.jobs.map((job) => ({ id: job.id, worker_id: job.workerId, input: job.input })),
          ),
          `${events}.queued`,
          JSON.stringify(event),
        ],
      },
      outcome: () => outcome,
    };
  }
  if (subject === 'take') {
    return {
      query: { ...STATEMENTS.take, values: [commandId, payload.workerId] },
      outcome: ({ rows }) => ({ ok: true, value: rows[0] ?? null }),
    };
  }
  const posts = payload.posts.map((post) => ({
    job_id: post.jobId,
    worker_id: post.workerId,
    output: post.output,
  }));
  const event = { eventId: commandId, occurredAt: issuedAt, jobIds: posts.map((post) => post.job_id) };
  return {
    query: {
      ...STATEMENTS.done,
      values: [commandId, JSON.stringify(posts), issuedAt, `${events}.changed`, JSON.stringify(event)],
    },
    outcome: ({ rows }) => ({ ok: true, value: rows.map((row) => row.id) }),
  };
}

/** Applies the batch in one transaction (a lone command: its statement alone); resolves each outcome. */
async function applyBatch(envelopes) {
  const statements = envelopes.map(statementOf);
  if (statements.length === 1) return [statements[0].outcome(await sql.query(statements[0].query))];
  const begun = sql.query('BEGIN');
  const results = statements.map((statement) => sql.query(statement.query));
  const committed = sql.query('COMMIT');
  try {
    await begun;
    const answers = await Promise.all(results);
    await committed;
    return statements.map((statement, n) => statement.outcome(answers[n]));
  } catch (error) {
    await Promise.allSettled([...results, committed]);
    await sql.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

let relayTimer = null;
let relaying = Promise.resolve();

/** The outbox's unpublished rows to FLOOR_EVTS (awaiting JetStream's acks), then marked. */
async function relay() {
  relayTimer = null;
  const { rows } = await relaySql.query({
    name: 'floor-relay-claim',
    text: `SELECT id, subject, payload FROM ${schema}.outbox WHERE published_at IS NULL ORDER BY id LIMIT 256`,
  });
  if (!rows.length) return;
  await Promise.all(
    rows.map((row) => js.publish(row.subject, JSON.stringify(row.payload), { msgID: `floor-evt-${row.id}` })),
  );
  await relaySql.query({
    name: 'floor-relay-mark',
    text: `UPDATE ${schema}.outbox SET published_at = now() WHERE id = ANY($1::bigint[])`,
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

const buffered = [];
let applying = false;

/** Applies what is buffered, a batch at a time, until nothing is. */
async function drain() {
  applying = true;
  while (buffered.length) {
    const batch = buffered.splice(0, BATCH_MAX);
    const envelopes = batch.map((msg) => msg.json());
    let outcomes;
    try {
      outcomes = await applyBatch(envelopes);
    } catch (error) {
      console.error(`a batch of ${batch.length} (first ${envelopes[0].subject}): ${error.message}`);
      for (const msg of batch) msg.nak(250);
      continue;
    }
    batch.forEach((msg, n) => {
      const to = msg.headers?.get('Outcome-To');
      if (to) nc.publish(`${to}.${envelopes[n].commandId}`, JSON.stringify(outcomes[n]));
      msg.ack();
    });
    if (envelopes.some((envelope) => envelope.subject !== 'take')) kickRelay();
  }
  applying = false;
}

const messages = await consumer.consume({
  max_messages: 256,
  callback: (msg) => {
    buffered.push(msg);
    if (!applying) void drain();
  },
});
process.stdout.write('ready\n');

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    messages.stop();
    void relaying
      .then(() => nc.drain())
      .then(() => Promise.all([sql.end(), relaySql.end()]))
      .finally(() => process.exit(0));
  });
}
