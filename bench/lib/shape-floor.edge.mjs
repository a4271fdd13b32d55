// The shape's floor: the job path (a sequential /runsync, and /run under load) as the shape fixed in DESIGN.md
// requires it and no more, written by hand in a few small processes, so the jobs-sync and throughput scenarios'
// ratios to their baselines read in two parts: what the shape itself costs (this side against the baseline) and
// what our implementation adds on top of it (ours against this side). What it keeps, because the shape requires it:
//   - an edge process apart from the owner of the jobs (this file), a worker that takes and finishes jobs over
//     HTTP with a long poll (shape-floor.worker.mjs), the owner (shape-floor.owner.mjs);
//   - every state change a command with an envelope (command id, time, subject), recorded in a JetStream stream
//     with the command id as Nats-Msg-Id before it is applied, the edge waiting for JetStream's ack;
//   - the owner applying it with the processed-command row and the outbox row in the effect's transaction, and
//     answering over core NATS after the commit; the outbox relayed to an events stream;
//   - the submit carrying the take of a waiting poll (as ours does); a take command when none waited;
//   - submits, and job-done posts, batched while one of their kind is on its way (as ours batches them), each batch
//     one recorded command; the owner applies what is buffered in one transaction, one statement a command.
// What it leaves out, because the shape does not require it (and the bare baseline has none of it either): auth,
// rate limits, validation, the rules checked in a handler before writing, retries, timeouts, metrics, logs.
//
//   HTTP_PORT=8097 NATS_URL=nats://127.0.0.1:4222 SUBJECT_ROOT=<prefix>_floor_seq node bench/lib/shape-floor.edge.mjs
import { randomBytes, randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect, headers } from '@nats-io/transport-node';
import Fastify from 'fastify';

const LONG_POLL_MS = 30_000;
const COMMAND_TIMEOUT_MS = 30_000;

const nc = await connect({ servers: process.env.NATS_URL.split(','), name: 'bench-floor-edge' });
const js = jetstream(nc);
// Its subjects: <root>.cmd.<name> (recorded), <root>.outcome.<process>.<command id> (core NATS).
const root = process.env.SUBJECT_ROOT;

// This process's outcomes: one subscription, a waiter per command id.
const inbox = `${root}.outcome.${randomBytes(8).toString('hex')}`;
const waiters = new Map();
nc.subscribe(`${inbox}.*`, {
  callback: (error, msg) => {
    if (error) return;
    const id = msg.subject.slice(inbox.length + 1);
    waiters.get(id)?.(msg.json());
    waiters.delete(id);
  },
});

/** Records the command (awaiting JetStream's ack) and resolves the owner's outcome. */
async function command(subject, payload, commandId = randomUUID()) {
  const envelope = { commandId, issuedAt: new Date().toISOString(), subject, payload };
  const outcome = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiters.delete(commandId);
      reject(new Error(`${subject} ${commandId}: no outcome within ${COMMAND_TIMEOUT_MS} ms`));
    }, COMMAND_TIMEOUT_MS);
    waiters.set(commandId, (value) => {
      clearTimeout(timer);
      resolve(value);
    });
  });
  const h = headers();
  h.set('Outcome-To', inbox);
  await js.publish(`${root}.cmd.${subject}`, JSON.stringify(envelope), {
    msgID: commandId,
    headers: h,
  });
  const answer = await outcome;
  if (!answer.ok) throw new Error(`${subject} ${commandId}: ${JSON.stringify(answer.error)}`);
  return answer.value;
}

/** Parked job-take polls, oldest first: { workerId, hand(job | null) }. */
const polls = [];
/** Jobs this edge submitted queued (no poll waited), not taken yet. */
let queued = 0;
/** The /runsync requests waiting for their job's done: job id → resolve(view). */
const finishers = new Map();

/** A take command for the poll; parks it again when the owner had nothing queued. */
function take(poll) {
  command('take', { workerId: poll.workerId })
    .then((job) => (job ? poll.hand(job) : (queued++, polls.push(poll))))
    .catch((error) => poll.fail(error));
}

/** Hands queued jobs to parked polls, a take command each. */
function serveQueued() {
  while (queued > 0 && polls.length > 0) {
    queued--;
    take(polls.shift());
  }
}

const app = Fastify({ logger: false });

app.get('/readyz', async () => ({ status: 'ok' }));

/**
 * Batches what arrives while a command of its kind is on its way into the next one, as ours batches submits and
 * job-done posts (docs/adr/0013): `add(item)` resolves that item's part of the answer. `send(items)` records one
 * command for all of them and resolves an answer per item (an Error: that item's request fails alone).
 */
function batcher(send) {
  let waiting = [];
  let busy = false;
  const flush = () => {
    if (busy || waiting.length === 0) return;
    const batch = waiting;
    waiting = [];
    busy = true;
    send(batch.map((entry) => entry.item))
      .then(
        (answers) =>
          batch.forEach((entry, n) =>
            answers[n] instanceof Error ? entry.reject(answers[n]) : entry.resolve(answers[n]),
          ),
        (error) => batch.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        busy = false;
        flush();
      });
  };
  return (item) =>
    new Promise((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      flush();
    });
}

/** Submits: each carries the take of the longest-waiting poll while polls wait; resolves {id, status} each. */
const submit = batcher(async (items) => {
  const claimed = items.map(() => polls.shift());
  let accepted;
  try {
    accepted = await command('submit', {
      jobs: items.map(({ jobId, input }, n) => ({
        id: jobId,
        input,
        ...(claimed[n] ? { workerId: claimed[n].workerId } : {}),
      })),
    });
  } catch (error) {
    polls.unshift(...claimed.filter(Boolean));
    throw error;
  }
  items.forEach(({ jobId, input }, n) => {
    if (claimed[n]) claimed[n].hand({ id: jobId, input });
    else queued++;
  });
  serveQueued();
  return accepted;
});

/** Job-done posts: resolves each post's job view; a post whose job is not leased to its worker fails alone. */
const finish = batcher(async (items) => {
  const done = new Set(await command('done', { posts: items }));
  return items.map(({ jobId, output }) => {
    if (!done.has(jobId)) return new Error(`job ${jobId} is not leased to its worker`);
    return { id: jobId, status: 'COMPLETED', output };
  });
});

app.post('/run', (request) => submit({ jobId: randomUUID(), input: request.body.input }));

app.post('/runsync', async (request) => {
  const jobId = randomUUID();
  const finished = new Promise((resolve) => finishers.set(jobId, resolve));
  try {
    await submit({ jobId, input: request.body.input });
  } catch (error) {
    finishers.delete(jobId);
    throw error;
  }
  return finished;
});

app.get('/take/:workerId', (request, reply) => {
  const poll = {
    workerId: request.params.workerId,
    hand: (job) => {
      clearTimeout(poll.timer);
      void reply.send(job);
    },
    fail: (error) => {
      clearTimeout(poll.timer);
      void reply.code(500).send({ error: error.message });
    },
  };
  poll.timer = setTimeout(() => {
    // Claimed by a submit or a take on its way: that one answers it.
    const at = polls.indexOf(poll);
    if (at < 0) return;
    polls.splice(at, 1);
    void reply.code(204).send();
  }, LONG_POLL_MS);
  if (queued > 0) {
    queued--;
    take(poll);
  } else polls.push(poll);
  return reply;
});

app.post('/done/:workerId/:jobId', async (request) => {
  const { workerId, jobId } = request.params;
  const view = await finish({ jobId, workerId, output: request.body.output });
  finishers.get(jobId)?.(view);
  finishers.delete(jobId);
  return { ok: true };
});

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    for (const poll of polls.splice(0)) poll.hand(null);
    void app
      .close()
      .then(() => nc.drain())
      .then(() => process.exit(0));
  });
}
await app.listen({ port: Number(process.env.HTTP_PORT), host: '127.0.0.1' });
