import {
  DomainOwner,
  domainOf,
  replayFeedSubject,
  type AppName,
  type CommandOutcome,
  type RecordedDecision,
  type ReplayFeedCommand,
  type ReplayFeedRequest,
  type ReplayFeedResult,
} from '@app/contracts';
import type { NatsClient } from '@app/messaging';
import { OwnerUnavailableError, describeFailure } from './outcomes.js';
import { Progress, type ProgressCounts } from './progress.js';
import type { RecordedCommand } from './selection.js';

export interface ReplayOptions {
  /** Where to apply: the deployment itself, or a rebuild's fresh one. */
  target: NatsClient;
  /** Only report what would be applied. */
  dryRun?: boolean;
  /** How long an owner may take for one request, plus PER_COMMAND_MS for each command in it. */
  requestTimeoutMs: number;
  /**
   * Called before the commands of another owner than the previous ones, and at the end (a rebuild waits there
   * until the events the commands caused are handled, as they were live before the next command).
   */
  settle?: () => Promise<void>;
  /** Label of the progress output; none when absent. */
  progressLabel?: string;
  /** Stops between two requests (the one under way is awaited: its outcomes are recorded either way). */
  signal?: AbortSignal;
  /**
   * What the live side decided for a command where a race chose its effect (a take's jobs), sent with it so the
   * owner follows it (docs/adr/0028-recorded-take-decisions.md): a rebuild reads it from the live outcomes.
   */
  decidedOf?: DecidedOf;
}

export type DecidedOf = (command: RecordedCommand) => RecordedDecision | undefined;

export interface ReplayFailure {
  seq: number;
  commandId: string;
  subject: string;
  reason: string;
}

export interface ReplaySummary extends ProgressCounts {
  selected: number;
  /** With --dry-run: how many would be applied (the others are applied already). */
  wouldApply: number;
  failures: ReplayFailure[];
  /** Wall-clock seconds the pass took, and commands per second (selected / seconds). */
  seconds: number;
  rate: number;
  /** The outcome each replayed or skipped command has now, by command id. */
  outcomes: Map<string, CommandOutcome>;
}

/** Commands per request at most: large enough to hide the round trip, small enough to stop soon on a signal. */
export const REQUEST_COMMANDS = 512;
/** Bytes of a request at most, below NATS' default max_payload (1 MiB) whatever the server says. */
const REQUEST_BYTES = 768 * 1024;
const PER_COMMAND_MS = 50;

/**
 * Applies recorded commands in the given order, each once, through their owners' replay feeds (ReplayFeed in
 * @app/messaging; docs/adr/0025-replay-speed.md): consecutive commands of one owner go in requests of up to
 * REQUEST_COMMANDS, which the owner applies in that order in batches (one transaction each, as its lanes do) and
 * answers with every outcome. The envelope is unchanged (same command id, issue time and actor), so handlers
 * derive the same ids and times; a command applied before is answered with its recorded outcome and counted as
 * skipped, so running the same replay twice applies nothing the second time. A command answered with an error is
 * counted as failed, with the owner's reason. An owner that does not answer stops the run: whether its commands
 * were applied must be known, not guessed.
 */
export async function replay(commands: RecordedCommand[], options: ReplayOptions): Promise<ReplaySummary> {
  const started = performance.now();
  const summary: ReplaySummary = {
    selected: commands.length,
    applied: 0,
    skipped: 0,
    failed: 0,
    wouldApply: 0,
    failures: [],
    seconds: 0,
    rate: 0,
    outcomes: new Map(),
  };
  const progress = options.progressLabel ? new Progress(commands.length, options.progressLabel) : undefined;
  let done = 0;
  let previousOwner: AppName | undefined;
  try {
    for (const { owner, commands: chunk, feed } of requests(commands, options.decidedOf)) {
      options.signal?.throwIfAborted();
      if (previousOwner && owner !== previousOwner && options.settle) await options.settle();
      previousOwner = owner;
      const results = await send(options, owner, chunk, feed);
      chunk.forEach((command, i) => count(summary, command, results[i], options.dryRun));
      done += chunk.length;
      progress?.update(done, summary);
    }
    if (options.settle && !options.dryRun) await options.settle();
  } finally {
    progress?.stop();
  }
  summary.seconds = (performance.now() - started) / 1000;
  summary.rate = summary.seconds > 0 ? Math.round(commands.length / summary.seconds) : 0;
  return summary;
}

interface Request {
  owner: AppName;
  commands: RecordedCommand[];
  /** What is sent for each of `commands`: subject, envelope and, when known, the live decision. */
  feed: ReplayFeedCommand[];
}

/** The commands cut into requests: runs of one owner, at most REQUEST_COMMANDS and REQUEST_BYTES each. */
export function* requests(
  commands: RecordedCommand[],
  decidedOf: DecidedOf = () => undefined,
): Generator<Request> {
  let current: (Request & { bytes: number }) | undefined;
  for (const command of commands) {
    const owner = DomainOwner[domainOf(command.subject)];
    const decided = decidedOf(command);
    const fed: ReplayFeedCommand = { subject: command.subject, envelope: command.envelope };
    if (decided) fed.decided = decided;
    const bytes = JSON.stringify(fed).length + 32;
    if (
      current &&
      (current.owner !== owner ||
        current.commands.length >= REQUEST_COMMANDS ||
        current.bytes + bytes > REQUEST_BYTES)
    ) {
      yield { owner: current.owner, commands: current.commands, feed: current.feed };
      current = undefined;
    }
    current ??= { owner, commands: [], feed: [], bytes: 0 };
    current.commands.push(command);
    current.feed.push(fed);
    current.bytes += bytes;
  }
  if (current) yield { owner: current.owner, commands: current.commands, feed: current.feed };
}

async function send(
  options: ReplayOptions,
  owner: AppName,
  commands: RecordedCommand[],
  feed: ReplayFeedCommand[],
): Promise<ReplayFeedResult[]> {
  const { target } = options;
  const request: ReplayFeedRequest = {
    commands: feed,
    ...(options.dryRun ? { dryRun: true } : {}),
  };
  const timeout = options.requestTimeoutMs + PER_COMMAND_MS * commands.length;
  let reply: CommandOutcome<{ results: ReplayFeedResult[] }>;
  try {
    const msg = await target.nc.request(target.subject(replayFeedSubject(owner)), JSON.stringify(request), {
      timeout,
    });
    reply = msg.json();
  } catch (error) {
    throw new OwnerUnavailableError(
      `${owner} (NATS prefix ${target.prefix}) did not answer a replay of ${commands.length} command(s) from ` +
        `#${commands[0].seq} within ${timeout} ms (${(error as Error).message}): start it, then run this again`,
    );
  }
  if (!reply.ok) throw new Error(`${owner} refused the replay: ${describeFailure(reply)}`);
  return reply.value.results;
}

function count(
  summary: ReplaySummary,
  command: RecordedCommand,
  result: ReplayFeedResult,
  dryRun: boolean | undefined,
): void {
  const { commandId } = command.envelope;
  const fail = (reason: string) => {
    summary.failed++;
    summary.failures.push({ seq: command.seq, commandId, subject: command.subject, reason });
  };
  if ('error' in result) return fail(`not applied: ${result.error}`);
  if (!result.outcome) {
    summary.wouldApply += dryRun ? 1 : 0;
    return;
  }
  summary.outcomes.set(commandId, result.outcome);
  if (!result.applied) summary.skipped++;
  else if (result.outcome.ok) summary.applied++;
  else fail(describeFailure(result.outcome));
}
