// The shape's floor (bench/lib/shape-floor.edge.mjs says what it is): its tables in the run's database, its two
// streams on the run's prefix (removed with the run's other streams) and its three processes, made once per run.
import { join } from 'node:path';
import { RetentionPolicy, StorageType, jetstreamManager } from '@nats-io/jetstream';
import { ROOT } from '../../scripts/lib/infra.mjs';
import { defer } from './cleanup.mjs';
import { freePorts, startNode, untilOutput, untilReady } from './processes.mjs';

const TABLES = `
  CREATE SCHEMA IF NOT EXISTS shape_floor;
  CREATE TABLE shape_floor.jobs (
    id text PRIMARY KEY, status text NOT NULL, worker_id text, input jsonb, output jsonb,
    queued_at timestamptz NOT NULL, finished_at timestamptz);
  CREATE INDEX jobs_queued ON shape_floor.jobs (queued_at, id) WHERE status = 'IN_QUEUE';
  CREATE TABLE shape_floor.processed (
    command_id text PRIMARY KEY, outcome jsonb NOT NULL, processed_at timestamptz NOT NULL DEFAULT now());
  CREATE TABLE shape_floor.outbox (
    id bigserial PRIMARY KEY, subject text NOT NULL, payload json NOT NULL, published_at timestamptz);
  CREATE INDEX outbox_unpublished ON shape_floor.outbox (id) WHERE published_at IS NULL;`;

const nanos = (ms) => ms * 1_000_000;

let made = null;

/**
 * What the floor has recorded so far: jobs completed, commands applied (processed rows), outbox rows, and
 * messages in its commands stream; the scenario checks a round against them.
 */
export async function floorRecord(ctx) {
  const { rows } = await ctx.sql.query(
    `SELECT (SELECT count(*) FROM shape_floor.jobs WHERE status = 'COMPLETED')::int AS completed,
            (SELECT count(*) FROM shape_floor.processed)::int AS processed,
            (SELECT count(*) FROM shape_floor.outbox)::int AS events`,
  );
  const jsm = await jetstreamManager(ctx.nc);
  const stream = await jsm.streams.info(`${ctx.natsPrefix}_FLOOR_CMDS`);
  return { ...rows[0], recorded: stream.state.messages };
}

/** The floor's edge URL and its processes' pids (edge, owner, worker): `{ url, pids }`. */
export function shapeFloor(ctx) {
  made ??= (async () => {
    await ctx.sql.query(TABLES);
    const jsm = await jetstreamManager(ctx.nc);
    const stream = `${ctx.natsPrefix}_FLOOR_CMDS`;
    // As our commands and events streams are kept: file storage, limits retention, a duplicate window.
    for (const [name, subjects] of [
      [stream, [`${ctx.natsPrefix}_floor.cmd.>`]],
      [`${ctx.natsPrefix}_FLOOR_EVTS`, [`${ctx.natsPrefix}_floor.evt.>`]],
    ]) {
      await jsm.streams.add({
        name,
        subjects,
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
      startNode('floor-owner', join(ROOT, 'bench/lib/shape-floor.owner.mjs'), {
        env: {
          DATABASE_URL: ctx.databaseUrl,
          NATS_URL: ctx.natsUrl,
          STREAM: stream,
          EVENTS: `${ctx.natsPrefix}_floor.evt`,
        },
      }),
    );
    await untilOutput(owner, 'ready');
    const [port] = await freePorts(1);
    const edge = started(
      startNode('floor-edge', join(ROOT, 'bench/lib/shape-floor.edge.mjs'), {
        env: { NATS_URL: ctx.natsUrl, PREFIX: ctx.natsPrefix, HTTP_PORT: String(port) },
      }),
    );
    const url = `http://127.0.0.1:${port}`;
    await untilReady(edge, url);
    const worker = started(
      startNode('floor-worker', join(ROOT, 'bench/lib/shape-floor.worker.mjs'), {
        env: { EDGE_URL: url, WORKER_ID: 'floor-worker' },
      }),
    );
    await untilOutput(worker, 'ready');
    return { url, pids: [edge.pid, owner.pid, worker.pid] };
  })();
  return made;
}
