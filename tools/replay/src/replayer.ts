import { randomBytes } from 'node:crypto';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { Headers, type CommandOutcome } from '@app/contracts';
import { waitForOutcome, type NatsClient } from '@app/messaging';
import { REPLAY_OF_HEADER } from './command-log.js';
import { describeFailure, recordedOutcome } from './outcomes.js';
import { Progress, type ProgressCounts } from './progress.js';
import type { RecordedCommand } from './selection.js';

export interface ReplayOptions {
  /** Where to apply: the deployment itself, or a rebuild's fresh one. */
  target: NatsClient;
  /** Only report what would be applied. */
  dryRun?: boolean;
  /** How long to wait for each command's outcome. */
  outcomeTimeoutMs: number;
  /** How long the owner may take to say whether a command was applied. */
  queryTimeoutMs: number;
  /** Called after each applied command, before the next (a rebuild waits for the events it caused). */
  settle?: () => Promise<void>;
  /**
   * Publish under the original command ids and without the replay marker: a rebuild's fresh stream then reads
   * like the original. Off for the deployment's own stream, where the original id may still be inside the
   * duplicate window and the copy should say what it repeats.
   */
  keepIds?: boolean;
  /** Label of the progress output; none when absent. */
  progressLabel?: string;
  /** Stops between two commands (the one being applied is awaited: its outcome is recorded either way). */
  signal?: AbortSignal;
}

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
  /** The outcome each replayed or skipped command has now, by command id. */
  outcomes: Map<string, CommandOutcome>;
}

/**
 * Applies recorded commands in the given order, each once: the owner is first asked for the command's recorded
 * outcome (applied already → skipped), otherwise the recorded envelope is published again and its outcome
 * awaited. The envelope is unchanged (same command id, issue time and actor), so handlers derive the same ids and
 * times, and running the same replay twice applies nothing the second time. A command answered with an error is
 * counted as failed, with the owner's reason; one that gets no answer within the timeout too.
 */
export async function replay(commands: RecordedCommand[], options: ReplayOptions): Promise<ReplaySummary> {
  const summary: ReplaySummary = {
    selected: commands.length,
    applied: 0,
    skipped: 0,
    failed: 0,
    wouldApply: 0,
    failures: [],
    outcomes: new Map(),
  };
  const progress = options.progressLabel ? new Progress(commands.length, options.progressLabel) : undefined;
  const runId = randomBytes(4).toString('hex');
  try {
    for (const [index, command] of commands.entries()) {
      options.signal?.throwIfAborted();
      const { commandId } = command.envelope;
      const recorded = await recordedOutcome(
        options.target,
        command.subject,
        commandId,
        options.queryTimeoutMs,
      );
      if (recorded) {
        summary.skipped++;
        summary.outcomes.set(commandId, recorded);
      } else if (options.dryRun) {
        summary.wouldApply++;
      } else {
        const result = await apply(command, options, runId);
        if ('outcome' in result) summary.outcomes.set(commandId, result.outcome);
        const reason =
          'outcome' in result ? (result.outcome.ok ? null : describeFailure(result.outcome)) : result.error;
        if (reason === null) summary.applied++;
        else {
          summary.failed++;
          summary.failures.push({ seq: command.seq, commandId, subject: command.subject, reason });
        }
        if (options.settle) await options.settle();
      }
      progress?.update(index + 1, summary);
    }
  } finally {
    progress?.stop();
  }
  return summary;
}

async function apply(
  command: RecordedCommand,
  options: ReplayOptions,
  runId: string,
): Promise<{ outcome: CommandOutcome } | { error: string }> {
  const { target } = options;
  const { commandId } = command.envelope;
  const waiting = waitForOutcome(target, commandId, options.outcomeTimeoutMs);
  const h = natsHeaders();
  h.set(Headers.CorrelationId, command.envelope.correlationId);
  h.set(Headers.CommandId, commandId);
  if (!options.keepIds) h.set(REPLAY_OF_HEADER, String(command.seq));
  try {
    await target.js.publish(target.subject(command.subject), JSON.stringify(command.envelope), {
      msgID: options.keepIds ? commandId : `${commandId}.replay.${runId}`,
      headers: h,
    });
  } catch (error) {
    waiting.cancel();
    return { error: `the command log did not accept it: ${(error as Error).message}` };
  }
  const outcome =
    (await waiting.promise) ??
    (await recordedOutcome(target, command.subject, commandId, options.queryTimeoutMs).catch(() => null));
  return outcome
    ? { outcome }
    : { error: `no outcome within ${options.outcomeTimeoutMs} ms (is its owner running?)` };
}
