import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { Streams, payloadBucketName, type AppName, type CommandOutcome } from '@app/contracts';
import type { NatsClient } from '@app/messaging';
import { CommandLog } from './command-log.js';
import { describeFailure } from './outcomes.js';
import { REBUILT_SCHEMAS } from './rebuild-scope.js';
import { replay, type ReplaySummary } from './replayer.js';
import { compareDatabases, type ComparisonReport } from './schema-compare.js';
import type { RecordedCommand } from './selection.js';

/** The apps that own command domains: the ones a rebuild runs. */
export const OWNER_APPS: readonly AppName[] = [
  'cluster-scheduler',
  'pod-lifecycle',
  'queue-broker',
  'endpoint-autoscaler',
];

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface RebuildOptions {
  live: NatsClient;
  liveDatabaseUrl: string;
  /** Environment of the apps the rebuild starts (the deployment's own config); DATABASE_URL etc. are replaced. */
  appEnv: NodeJS.ProcessEnv;
  connect: (prefix: string) => Promise<NatsClient>;
  keep: boolean;
  outcomeTimeoutMs: number;
  queryTimeoutMs: number;
  log: (line: string) => void;
  /**
   * Stops the rebuild (SIGINT, SIGTERM): the replay stops between two commands and everything the rebuild
   * created (apps, database, streams, payload bucket) is removed before the promise rejects.
   */
  signal?: AbortSignal;
}

export interface OutcomeMismatch {
  seq: number;
  commandId: string;
  subject: string;
  live: string;
  rebuilt: string;
}

export interface RebuildReport {
  database: string;
  prefix: string;
  commands: number;
  /** Commands the live deployment has no outcome for (never applied there): replayed at their stream position. */
  notAppliedLive: number;
  firstPass: Omit<ReplaySummary, 'outcomes'>;
  secondPass: Omit<ReplaySummary, 'outcomes'>;
  outcomeMismatches: OutcomeMismatch[];
  /** Commands recorded in the live stream after the rebuild read it (their effects cause differences). */
  recordedSince: number;
  comparison: ComparisonReport;
}

/**
 * Replays the whole commands stream into a fresh database and compares it with the live one:
 * 1. creates database `<live>_rebuild_<id>` on the same server and runs every owner's migrations;
 * 2. starts the four owner apps on it with a fresh NATS prefix and REPLAY_MODE=true (they apply what they are given
 *    and nothing else: no runtime driver, autoscaler loop, sweeper or webhooks);
 * 3. replays every recorded command in the order the live deployment applied them (its `processed_commands`
 *    times; stream order for commands it never applied), waiting after each until the events it caused are
 *    handled, and compares each outcome with the live one;
 * 4. replays the same commands a second time, which must apply nothing;
 * 5. compares the databases table by table; stops the apps and drops the database and streams unless `keep`.
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
    for (const app of OWNER_APPS) {
      options.signal?.throwIfAborted();
      await migrate(app, env);
    }
    // Registered as soon as it is spawned: a stop while it starts still stops it.
    for (const app of OWNER_APPS) await startApp(app, env, (running) => apps.push(running), options.signal);
    target = await options.connect(prefix);

    const log_ = new CommandLog(options.live);
    const { lastSeq } = await log_.state();
    const recorded: RecordedCommand[] = [];
    for await (const command of log_.read({ toSeq: lastSeq })) recorded.push(command);
    const live = await liveOutcomes(options.liveDatabaseUrl);
    const ordered = applyOrder(recorded, live);
    const notAppliedLive = recorded.filter((c) => !live.has(c.envelope.commandId)).length;
    log(
      `rebuild: ${recorded.length} commands (stream up to #${lastSeq}), ${notAppliedLive} never applied live`,
    );

    const quiet = settler(target, rebuiltUrl.toString());
    closers.push(quiet.close);
    const settle = quiet.settle;
    const replayOptions = {
      target,
      keepIds: true,
      settle,
      outcomeTimeoutMs: options.outcomeTimeoutMs,
      queryTimeoutMs: options.queryTimeoutMs,
      signal: options.signal,
    };
    const first = await replay(ordered, { ...replayOptions, progressLabel: 'rebuild' });
    await settle();
    const second = await replay(ordered, { ...replayOptions, progressLabel: 'second pass' });
    const outcomeMismatches = mismatches(ordered, live, first.outcomes);
    const recordedSince = (await log_.state()).lastSeq - lastSeq;
    const comparison = await compareDatabases(
      options.liveDatabaseUrl,
      rebuiltUrl.toString(),
      REBUILT_SCHEMAS,
    );
    return {
      database,
      prefix,
      commands: recorded.length,
      notAppliedLive,
      firstPass: withoutOutcomes(first),
      secondPass: withoutOutcomes(second),
      outcomeMismatches,
      recordedSince,
      comparison,
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

interface LiveOutcome {
  /** Seconds since the epoch, with microseconds. */
  at: number;
  outcome: CommandOutcome;
}

async function liveOutcomes(databaseUrl: string): Promise<Map<string, LiveOutcome>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const union = REBUILT_SCHEMAS.map(
      (s) =>
        `SELECT command_id, extract(epoch FROM processed_at)::text AS at, outcome FROM ${ident(s)}.processed_commands`,
    ).join(' UNION ALL ');
    const result = await client.query<{ command_id: string; at: string; outcome: CommandOutcome }>(union);
    return new Map(result.rows.map((r) => [r.command_id, { at: Number(r.at), outcome: r.outcome }]));
  } finally {
    await client.end();
  }
}

/**
 * The order the live deployment applied the commands in. The stream holds them in the order they were recorded,
 * but each domain has a consumer of its own, so a command may be applied before one recorded just ahead of it
 * (a worker's take overtaking a job's submit, say). A command the live side never applied keeps its place after
 * the command recorded before it.
 */
export function applyOrder(
  commands: RecordedCommand[],
  live: Map<string, { at: number }>,
): RecordedCommand[] {
  let carried = -Infinity;
  const keyed = commands.map((command, index) => {
    const at = live.get(command.envelope.commandId)?.at;
    if (at !== undefined) carried = Math.max(carried, at);
    return { command, index, key: at ?? carried };
  });
  keyed.sort((a, b) => a.key - b.key || a.index - b.index);
  return keyed.map((k) => k.command);
}

function mismatches(
  commands: RecordedCommand[],
  live: Map<string, LiveOutcome>,
  rebuilt: Map<string, CommandOutcome>,
): OutcomeMismatch[] {
  const out: OutcomeMismatch[] = [];
  for (const command of commands) {
    const a = live.get(command.envelope.commandId)?.outcome;
    const b = rebuilt.get(command.envelope.commandId);
    if (!a || !b || isDeepStrictEqual(a, b)) continue; // key order differs: jsonb sorts keys
    out.push({
      seq: command.seq,
      commandId: command.envelope.commandId,
      subject: command.subject,
      live: a.ok ? JSON.stringify(a.value) : describeFailure(a),
      rebuilt: b.ok ? JSON.stringify(b.value) : describeFailure(b),
    });
  }
  return out;
}

/**
 * Waits until the rebuilt deployment is quiet: no outbox row unpublished and every durable consumer of its
 * commands and events streams caught up, twice in a row (an event handled may have emitted another).
 */
function settler(
  nats: NatsClient,
  databaseUrl: string,
): { settle: () => Promise<void>; close: () => Promise<void> } {
  const client = new pg.Client({ connectionString: databaseUrl });
  const connected = client.connect();
  const pendingOutbox = REBUILT_SCHEMAS.map(
    (s) => `(SELECT count(*) FROM ${ident(s)}.outbox WHERE published_at IS NULL)`,
  ).join(' + ');
  const quiet = async (): Promise<boolean> => {
    await connected;
    const { rows } = await client.query<{ n: string }>(`SELECT ${pendingOutbox} AS n`);
    if (Number(rows[0].n) > 0) return false;
    for (const stream of [Streams.Commands, Streams.Events]) {
      for await (const consumer of nats.jsm.consumers.list(nats.streamName(stream))) {
        if (consumer.num_pending > 0 || consumer.num_ack_pending > 0) return false;
      }
    }
    return true;
  };
  const settle = async (): Promise<void> => {
    const deadline = Date.now() + 60_000;
    let quietReads = 0;
    while (quietReads < 2) {
      if (Date.now() > deadline) throw new Error('the rebuilt deployment did not settle within 60 s');
      if (await quiet()) quietReads++;
      else {
        quietReads = 0;
        await new Promise((r) => setTimeout(r, 10));
      }
    }
  };
  return { settle, close: () => connected.then(() => client.end()) };
}

/** The rebuild's streams, and the payload bucket its queue-broker created (a key-value bucket is a stream too). */
async function deleteStreams(nats: NatsClient, prefix: string): Promise<void> {
  const names = [
    ...Object.values(Streams).map((name) => `${prefix}_${name}`),
    `KV_${payloadBucketName(prefix)}`,
  ];
  for (const name of names) await nats.jsm.streams.delete(name).catch(() => false);
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function adminQuery(databaseUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

// ---- the owner apps -------------------------------------------------------------------------------------------

interface RunningApp {
  stop(): Promise<void>;
}

function appScript(app: AppName, file: 'main' | 'migrate'): string {
  const script = `${ROOT}dist/apps/${app}/${file}.js`;
  if (!existsSync(script)) throw new Error(`${script} is missing: run \`npm run build\` first`);
  return script;
}

function migrate(app: AppName, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [appScript(app, 'migrate')], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`migrations of ${app} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startApp(
  app: AppName,
  env: NodeJS.ProcessEnv,
  spawned: (running: RunningApp) => void,
  signal?: AbortSignal,
): Promise<void> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [appScript(app, 'main')], {
    // METRICS_PORT 0: any free port, so a rebuild never collides with the deployment's own listeners.
    env: { ...env, HTTP_PORT: String(port), HTTP_HOST: '127.0.0.1', METRICS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited: number | null | undefined;
  const gone = new Promise<void>((resolve) =>
    child.on('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  spawned({
    stop: async () => {
      if (exited !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    },
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    signal?.throwIfAborted();
    if (exited !== undefined)
      throw new Error(`${app} exited (code ${exited}) while starting: ${output.trim()}`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} was not ready within 60 s: ${output.trim()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
