import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { NatsClient } from '@app/messaging';
import { CommandLog } from './command-log.js';
import { compareWithLive, type LaterCommands } from './live-check.js';
import {
  applyOrder,
  liveDecisions,
  liveOutcomes,
  mismatches,
  type OutcomeMismatch,
} from './live-outcomes.js';
import { OWNER_APPS, migrate, startApp, type RunningApp } from './rebuild-apps.js';
import { replay, type ReplaySummary } from './replayer.js';
import type { ComparisonReport } from './schema-compare.js';
import type { RecordedCommand } from './selection.js';
import { settler } from './settler.js';

export interface RebuildOptions {
  live: NatsClient;
  liveDatabaseUrl: string;
  /** Environment of the apps the rebuild starts (the deployment's own config); DATABASE_URL etc. are replaced. */
  appEnv: NodeJS.ProcessEnv;
  connect: (prefix: string) => Promise<NatsClient>;
  keep: boolean;
  /** How long an owner may take to answer one replay request (plus a little per command in it). */
  requestTimeoutMs: number;
  log: (line: string) => void;
  /**
   * Stops the rebuild (SIGINT, SIGTERM): the replay stops between two requests and everything the rebuild
   * created (apps, database, streams, payload bucket) is removed before the promise rejects.
   */
  signal?: AbortSignal;
}

export interface RebuildReport {
  database: string;
  prefix: string;
  commands: number;
  /** Commands the live deployment has no outcome for (never applied there): replayed at their stream position. */
  notAppliedLive: number;
  /** Seconds from creating the database to the apps answering (migrations and start-up). */
  startupSeconds: number;
  firstPass: Omit<ReplaySummary, 'outcomes'>;
  secondPass: Omit<ReplaySummary, 'outcomes'>;
  outcomeMismatches: OutcomeMismatch[];
  /** Commands recorded live during the rebuild: replayed too when applied live by the snapshot compared with. */
  later: LaterCommands;
  comparison: ComparisonReport;
}

/**
 * Replays the whole commands stream into a fresh database and compares it with the live one:
 * 1. creates database `<live>_rebuild_<id>` on the same server and runs every owner's migrations;
 * 2. starts the four owner apps and the gateway (the audit trail's keeper) on it with a fresh NATS prefix and
 *    REPLAY_MODE=true (they apply what they are given and nothing else: no runtime driver, autoscaler loop, sweeper
 *    or webhooks);
 * 3. replays every recorded command up to the stream's last sequence, in the order the live deployment applied
 *    them (its `processed_commands` times; stream order for commands it never applied), through the owners'
 *    replay feeds in batches, waiting whenever the owner changes until the events caused so far are handled, and
 *    compares each outcome with the live one; a take leases the jobs it leased live (liveDecisions);
 * 4. replays the same commands a second time, which must apply nothing;
 * 5. replays what was recorded and applied live meanwhile, and compares the databases table by table against one
 *    snapshot of the live one (compareWithLive); stops the apps and removes the database, streams and bucket
 *    unless `keep`.
 */
export async function rebuild(options: RebuildOptions): Promise<RebuildReport> {
  const { log } = options;
  const id = randomBytes(3).toString('hex');
  const liveDb = new URL(options.liveDatabaseUrl);
  const database = `${decodeURIComponent(liveDb.pathname.slice(1))}_rebuild_${id}`.slice(0, 63);
  const prefix = `${options.live.prefix.slice(0, 24)}rb${id}`;
  const rebuiltUrl = new URL(options.liveDatabaseUrl);
  rebuiltUrl.pathname = `/${encodeURIComponent(database)}`;
  const apps: RunningApp[] = [];
  let target: NatsClient | undefined;
  const closers: (() => Promise<void>)[] = [];
  const startedAt = performance.now();
  await adminQuery(options.liveDatabaseUrl, `CREATE DATABASE ${ident(database)}`);
  try {
    log(`rebuild: database ${database}, NATS prefix ${prefix}`);
    const env: NodeJS.ProcessEnv = {
      ...options.appEnv,
      DATABASE_URL: rebuiltUrl.toString(),
      NATS_PREFIX: prefix,
      REPLAY_MODE: 'true',
      FAULT_INJECT: undefined,
    };
    // Each app migrates its own schema and starts on its own: side by side, as `npm start` does.
    await Promise.all(OWNER_APPS.map((app) => migrate(app, env)));
    options.signal?.throwIfAborted();
    // Registered as soon as it is spawned: a stop while it starts still stops it.
    await Promise.all(
      OWNER_APPS.map((app) => startApp(app, env, (running) => apps.push(running), options.signal)),
    );
    target = await options.connect(prefix);
    const startupSeconds = (performance.now() - startedAt) / 1000;

    const commandLog = new CommandLog(options.live);
    const { lastSeq } = await commandLog.state();
    const recorded: RecordedCommand[] = [];
    for await (const command of commandLog.read({ toSeq: lastSeq })) recorded.push(command);
    const live = await withClient(options.liveDatabaseUrl, liveOutcomes);
    const ordered = applyOrder(recorded, live);
    const notAppliedLive = recorded.filter((c) => !live.has(c.envelope.commandId)).length;
    log(
      `rebuild: ${recorded.length} commands (stream up to #${lastSeq}), ${notAppliedLive} never applied live; ` +
        `apps ready in ${startupSeconds.toFixed(1)} s`,
    );

    const quiet = settler(target, rebuiltUrl.toString());
    closers.push(quiet.close);
    const replayOptions = {
      target,
      settle: quiet.settle,
      requestTimeoutMs: options.requestTimeoutMs,
      signal: options.signal,
    };
    // Takes lease the jobs they leased live (their outcomes say which), not what the order alone would give.
    const decidedOf = liveDecisions(live);
    const first = await replay(ordered, { ...replayOptions, decidedOf, progressLabel: 'rebuild' });
    log(`rebuild: first pass ${first.rate} commands/s (${first.seconds.toFixed(1)} s)`);
    // Applies nothing unless the first pass could not apply a command; a take then still follows its decision.
    const second = await replay(ordered, { ...replayOptions, decidedOf, progressLabel: 'second pass' });
    const check = await compareWithLive({
      log: commandLog,
      fromSeq: lastSeq + 1,
      replayed: new Set(ordered.map((c) => c.envelope.commandId)),
      liveDatabaseUrl: options.liveDatabaseUrl,
      rebuiltUrl: rebuiltUrl.toString(),
      replayOptions,
    });
    return {
      database,
      prefix,
      commands: recorded.length,
      notAppliedLive,
      startupSeconds,
      firstPass: withoutOutcomes(first),
      secondPass: withoutOutcomes(second),
      outcomeMismatches: [...mismatches(ordered, live, first.outcomes), ...check.outcomeMismatches],
      later: check.later,
      comparison: check.comparison,
    };
  } finally {
    for (const close of closers) await close().catch(() => undefined);
    await Promise.all(apps.map((app) => app.stop()));
    if (target) await target.nc.drain().catch(() => undefined);
    if (options.keep) {
      log(`rebuild: kept database ${database} (streams of prefix ${prefix} kept too)`);
    } else {
      await deleteStreams(options.live, prefix).catch((e: Error) =>
        log(`rebuild: could not delete streams: ${e.message}`),
      );
      await adminQuery(
        options.liveDatabaseUrl,
        `DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`,
      ).catch((e: Error) => log(`rebuild: could not drop ${database}: ${e.message}`));
    }
  }
}

function withoutOutcomes(summary: ReplaySummary): Omit<ReplaySummary, 'outcomes'> {
  const { outcomes: _outcomes, ...rest } = summary;
  return rest;
}

/**
 * The rebuild's streams and its key-value buckets (a bucket is a stream `KV_<bucket>`; the queue-broker's payload
 * bucket is `KV_<prefix>_payloads`): every stream named after its prefix, found on the server rather than listed,
 * so a stream or bucket added later is removed too.
 */
async function deleteStreams(nats: NatsClient, prefix: string): Promise<void> {
  const ours = (name: string) => name.startsWith(`${prefix}_`) || name.startsWith(`KV_${prefix}_`);
  const names: string[] = [];
  for await (const name of nats.jsm.streams.names()) if (ours(name)) names.push(name);
  for (const name of names) await nats.jsm.streams.delete(name).catch(() => false);
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function withClient<T>(databaseUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function adminQuery(databaseUrl: string, sql: string): Promise<void> {
  await withClient(databaseUrl, (client) => client.query(sql));
}
