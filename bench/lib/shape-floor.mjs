// The shape's floor (bench/lib/shape-floor.edge.mjs says what it is): per use, its tables in a schema of the run's
// database, its two streams on the run's prefix (removed with the run's other streams) and its processes (an edge,
// an owner, worker processes), made once per run.
import { join } from 'node:path';
import { RetentionPolicy, StorageType, jetstreamManager } from '@nats-io/jetstream';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { defer } from './cleanup.mjs';
import { freePorts, startNode, untilOutput, untilReady } from './processes.mjs';

const tables = (schema) => `
  CREATE SCHEMA ${schema};
  CREATE TABLE ${schema}.jobs (
    id text PRIMARY KEY, status text NOT NULL, worker_id text, input jsonb, output jsonb,
    queued_at timestamptz NOT NULL, finished_at timestamptz);
  CREATE INDEX ON ${schema}.jobs (queued_at, id) WHERE status = 'IN_QUEUE';
  CREATE TABLE ${schema}.processed (
    command_id text PRIMARY KEY, outcome jsonb NOT NULL, processed_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE ${schema}.outbox (
    id bigserial PRIMARY KEY, subject text NOT NULL, payload json NOT NULL, published_at timestamptz);
  CREATE INDEX ON ${schema}.outbox (id) WHERE published_at IS NULL;`;

const nanos = (ms) => ms * 1_000_000;

const made = new Map();

/**
 * The floor named `name` (a-z): `{ url, pids, schema, stream }`, its edge's URL, its processes' pids (edge, owner,
 * workers), where it keeps its rows and records its commands. `workers` processes of `slots` slots each.
 */
export function shapeFloor(ctx, name, { workers = 1, slots = 1 } = {}) {
  if (!made.has(name)) made.set(name, start(ctx, name, workers, slots));
  return made.get(name);
}

async function start(ctx, name, workers, slots) {
  const schema = `shape_floor_${name}`;
  const root = `${ctx.natsPrefix}_floor_${name}`;
  const stream = `${ctx.natsPrefix}_FLOOR_${name.toUpperCase()}_CMDS`;
  await ctx.sql.query(tables(schema));
  const jsm = await jetstreamManager(ctx.nc);
  // As our commands and events streams are kept: file storage, limits retention, a duplicate window.
  for (const [streamName, subject] of [
    [stream, `${root}.cmd.>`],
    [`${ctx.natsPrefix}_FLOOR_${name.toUpperCase()}_EVTS`, `${root}.evt.>`],
  ]) {
    await jsm.streams.add({
      name: streamName,
      subjects: [subject],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      duplicate_window: nanos(120_000),
    });
  }
  const started = (proc) => {
    defer(proc.name, () => proc.stop());
    return proc;
  };
  const owner = started(
    startNode(`floor-${name}-owner`, join(ROOT, 'bench/lib/shape-floor.owner.mjs'), {
      env: {
        DATABASE_URL: ctx.databaseUrl,
        NATS_URL: ctx.natsUrl,
        SCHEMA: schema,
        STREAM: stream,
        EVENTS: `${root}.evt`,
      },
    }),
  );
  await untilOutput(owner, 'ready');
  const [port] = await freePorts(1);
  const edge = started(
    startNode(`floor-${name}-edge`, join(ROOT, 'bench/lib/shape-floor.edge.mjs'), {
      env: { NATS_URL: ctx.natsUrl, SUBJECT_ROOT: root, HTTP_PORT: String(port) },
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  await untilReady(edge, url);
  const workerProcs = [];
  for (let n = 0; n < workers; n++) {
    const worker = started(
      startNode(`floor-${name}-worker-${n}`, join(ROOT, 'bench/lib/shape-floor.worker.mjs'), {
        env: { EDGE_URL: url, WORKER_ID: `floor-worker-${n}`, SLOTS: String(slots) },
      }),
    );
    await untilOutput(worker, 'ready');
    workerProcs.push(worker);
  }
  return {
    url,
    schema,
    stream,
    root,
    pids: [edge.pid, owner.pid, ...workerProcs.map((worker) => worker.pid)],
  };
}

/**
 * What the floor has recorded so far: jobs completed, commands applied (processed rows), outbox rows, and
 * messages in its commands stream; the scenarios check a round against them.
 */
export async function floorRecord(ctx, floor) {
  const { rows } = await ctx.sql.query(
    `SELECT (SELECT count(*) FROM ${floor.schema}.jobs WHERE status = 'COMPLETED')::int AS completed,
            (SELECT count(*) FROM ${floor.schema}.processed)::int AS processed,
            (SELECT count(*) FROM ${floor.schema}.outbox)::int AS events`,
  );
  const jsm = await jetstreamManager(ctx.nc);
  const stream = await jsm.streams.info(floor.stream);
  return { ...rows[0], recorded: stream.state.messages };
}

/**
 * Throws unless the round between `before` and `after` completed `jobs` jobs (only the owner's commands write the
 * jobs' rows) and every command it applied was recorded in the stream, and only those.
 */
export function checkFloorRound(before, after, jobs) {
  const completed = after.completed - before.completed;
  const processed = after.processed - before.processed;
  const recorded = after.recorded - before.recorded;
  if (completed !== jobs || processed < 2 || recorded !== processed) {
    throw new Error(
      `the shape's floor: ${jobs} jobs, ${completed} completed, ${processed} commands applied, ${recorded} recorded`,
    );
  }
}
