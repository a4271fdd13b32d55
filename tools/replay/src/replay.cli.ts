import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { NatsClient, natsAuth } from '@app/messaging';
import { loadConfigOrExit } from '@app/platform';
import { CommandLog } from './command-log.js';
import { OwnerUnavailableError, describeFailure, recordedOutcome } from './outcomes.js';
import { redact } from './redact.js';
import { rebuild } from './rebuild.js';
import { replay } from './replayer.js';
import { out, printRebuild, printSummary, rebuildDiffers, table } from './replay-report.js';
import { ReplayConfig } from './replay.config.js';
import { SelectionError, parseSelection, type RecordedCommand, type Selection } from './selection.js';

const USAGE = `usage: npm run replay -- <command> [options]

  list    [selection] [--limit N] [--json]   recorded commands, oldest first (a table, or JSON lines)
  show    <seq | command id> [--json]        one command: envelope, payload (secrets redacted), whether it
                                             was applied, and its recorded outcome
  replay  <selection | --all> [--dry-run]    apply, in order, the selected commands not applied yet; a summary
                                             of applied, skipped (already applied) and failed (with reasons)
  rebuild [--keep] [--json]                  replay the whole stream into a fresh database with the owner apps
                                             in REPLAY_MODE, and compare it with the live one table by table

selection (all optional, combined with AND; bounds inclusive):
  --from-seq N --to-seq N      stream sequence range
  --since TIME --until TIME    time range the commands were recorded in (ISO-8601)
  --subject PATTERN            subject without the prefix, NATS wildcards: pod.cmd.*, job.>
  --command-id ID              one command
  --actor USER                 commands of one user (system: the apps' own)
  --include-replays            also the copies earlier replays recorded

environment: NATS_URL and NATS_PREFIX of the deployment (NATS_USER and NATS_PASSWORD when it requires them);
rebuild also needs DATABASE_URL (the live database) and the apps' own settings (FLEET_FILE, ...), which it passes
to the apps it starts. No key ring: nothing sealed is opened.
exit status: 0 done, 1 a command failed or the rebuild differs, 2 bad usage, 130/143 stopped by SIGINT/SIGTERM
(a rebuild removes what it created first).`;

class UsageError extends Error {}

function parse() {
  try {
    return parseArgs({
      allowPositionals: true,
      options: {
        'from-seq': { type: 'string' },
        'to-seq': { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        subject: { type: 'string' },
        'command-id': { type: 'string' },
        actor: { type: 'string' },
        'include-replays': { type: 'boolean' },
        limit: { type: 'string' },
        json: { type: 'boolean', default: false },
        'dry-run': { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
        keep: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

const err = (line: string) => process.stderr.write(`${line}\n`);

/**
 * SIGINT and SIGTERM (also through `npm run`, which passes them on) stop a replay or rebuild between two requests;
 * a rebuild then stops its apps and removes its database, streams and payload bucket. A second signal exits at
 * once, but only a second later: Ctrl-C under `npm run` arrives twice at once (from the terminal to the whole
 * process group, and again from npm), and exiting on that echo left the apps, database and streams behind.
 */
const stop = new AbortController();
const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;
const SIGNAL_ECHO_MS = 1000;
let stoppedBy: keyof typeof SIGNAL_EXIT | undefined;
let stoppedAt = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stoppedBy) {
      if (Date.now() - stoppedAt >= SIGNAL_ECHO_MS) process.exit(SIGNAL_EXIT[signal]);
      return;
    }
    stoppedBy = signal;
    stoppedAt = Date.now();
    err(
      `replay: ${signal}: stopping after the current request and cleaning up (send it again to exit at once)`,
    );
    stop.abort(new Error(`stopped by ${signal}`));
  });
}

async function main(): Promise<number> {
  const { values, positionals } = parse();
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  const selection = parseSelection(values);
  const config = loadConfigOrExit(ReplayConfig);
  const connect = (prefix: string) =>
    NatsClient.connect(config.NATS_URL, prefix, `replay-tool`, natsAuth(config));
  const nats = await connect(config.NATS_PREFIX);
  try {
    const log = new CommandLog(nats);
    switch (command) {
      case 'list':
        return await list(log, selection, values.limit, values.json);
      case 'show':
        if (rest.length !== 1) throw new UsageError('show takes one stream sequence or command id');
        return await show(log, nats, rest[0], config, values.json);
      case 'replay': {
        if (!values.all && Object.keys(selection).every((k) => k === 'includeReplays')) {
          throw new UsageError('replay needs a selection (--from-seq, --since, --subject, ...) or --all');
        }
        const commands: RecordedCommand[] = [];
        for await (const c of log.read(selection)) commands.push(c);
        const summary = await replay(commands, {
          target: nats,
          dryRun: values['dry-run'],
          requestTimeoutMs: config.COMMAND_TIMEOUT_MS,
          progressLabel: 'replay',
          signal: stop.signal,
        });
        printSummary(summary, values['dry-run'], values.json);
        return summary.failed > 0 ? 1 : 0;
      }
      case 'rebuild': {
        if (!config.DATABASE_URL) {
          throw new UsageError('rebuild needs DATABASE_URL: the live database to compare with');
        }
        const report = await rebuild({
          live: nats,
          liveDatabaseUrl: config.DATABASE_URL,
          appEnv: process.env,
          connect,
          keep: values.keep,
          requestTimeoutMs: config.COMMAND_TIMEOUT_MS,
          log: err,
          signal: stop.signal,
        });
        printRebuild(report, values.json);
        return rebuildDiffers(report) ? 1 : 0;
      }
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } finally {
    await nats.nc.drain().catch(() => undefined);
  }
}

async function list(
  log: CommandLog,
  selection: Selection,
  limitRaw: string | undefined,
  json: boolean,
): Promise<number> {
  const limit = limitRaw === undefined ? Infinity : Number(limitRaw);
  if (!(limit >= 1) || !Number.isInteger(limit === Infinity ? 1 : limit)) {
    throw new UsageError(`--limit must be a whole number from 1, not ${limitRaw}`);
  }
  const rows: string[][] = [];
  let n = 0;
  for await (const c of log.read(selection)) {
    if (n++ >= limit) break;
    const actor = c.envelope.actor?.userId ?? '?';
    if (json) {
      out(
        JSON.stringify({
          seq: c.seq,
          recordedAt: c.recordedAt.toISOString(),
          subject: c.subject,
          commandId: c.envelope.commandId,
          issuedAt: c.envelope.issuedAt,
          actor: c.envelope.actor,
          correlationId: c.envelope.correlationId,
          ...(c.replayOf !== undefined ? { replayOf: c.replayOf } : {}),
        }),
      );
    } else {
      rows.push([
        String(c.seq),
        c.recordedAt.toISOString(),
        c.subject,
        c.envelope.commandId,
        actor,
        c.replayOf !== undefined ? `replay of #${c.replayOf}` : '',
      ]);
    }
  }
  if (!json) {
    table(['SEQ', 'RECORDED', 'SUBJECT', 'COMMAND ID', 'ACTOR', ''], rows);
    err(`${rows.length} command(s)`);
  }
  return 0;
}

async function show(
  log: CommandLog,
  nats: NatsClient,
  which: string,
  config: ReplayConfig,
  json: boolean,
): Promise<number> {
  let command: RecordedCommand | null = null;
  if (/^\d+$/.test(which)) command = await log.get(Number(which));
  else for await (const c of log.read({ commandId: which })) command ??= c;
  if (!command) {
    err(`no recorded command ${which} in ${log.stream}`);
    return 1;
  }
  let applied: 'yes' | 'no' | 'unknown';
  let outcomeText: string;
  let outcome: unknown = null;
  try {
    const recorded = await recordedOutcome(
      nats,
      command.subject,
      command.envelope.commandId,
      config.BUS_REQUEST_TIMEOUT_MS,
    );
    applied = recorded ? 'yes' : 'no';
    outcome = recorded;
    outcomeText = !recorded
      ? '(none: not applied)'
      : recorded.ok
        ? `ok ${JSON.stringify(recorded.value)}`
        : `error ${describeFailure(recorded)}`;
  } catch (error) {
    if (!(error instanceof OwnerUnavailableError)) throw error;
    applied = 'unknown';
    outcomeText = `unknown: ${error.message}`;
  }
  const { payload, ...envelope } = command.envelope;
  if (json) {
    out(
      JSON.stringify({
        seq: command.seq,
        recordedAt: command.recordedAt.toISOString(),
        ...(command.replayOf !== undefined ? { replayOf: command.replayOf } : {}),
        envelope: { ...envelope, payload: redact(payload) },
        applied,
        outcome,
      }),
    );
    return 0;
  }
  out(
    `seq          ${command.seq}${command.replayOf !== undefined ? ` (replay of #${command.replayOf})` : ''}`,
  );
  out(`recorded     ${command.recordedAt.toISOString()}`);
  out(`subject      ${command.subject}`);
  out(`command id   ${envelope.commandId}`);
  out(`issued       ${envelope.issuedAt}`);
  out(
    `actor        ${envelope.actor?.kind ?? '?'} ${envelope.actor?.userId ?? '?'}${envelope.actor?.keyId ? ` (key ${envelope.actor.keyId})` : ''}`,
  );
  out(`correlation  ${envelope.correlationId}`);
  out(`applied      ${applied}`);
  out(`outcome      ${outcomeText}`);
  out(`payload      ${JSON.stringify(redact(payload), null, 2).replaceAll('\n', '\n             ')}`);
  return 0;
}

/** Exits once everything written to stdout has reached the pipe (a large JSON report is written in pieces). */
const exit = (code: number) => process.stdout.write('', () => process.exit(code));

main().then(exit, (error: unknown) => {
  if (stoppedBy) {
    err(`replay: stopped by ${stoppedBy}`);
    exit(SIGNAL_EXIT[stoppedBy]);
    return;
  }
  if (error instanceof UsageError || error instanceof SelectionError) {
    err(`${error.message}\n\n${USAGE}`);
    exit(2);
    return;
  }
  err(`replay: ${error instanceof Error ? error.message : String(error)}`);
  exit(1);
});
