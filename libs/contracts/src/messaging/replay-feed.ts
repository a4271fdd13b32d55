import { ErrorCode } from '../errors/error-code.js';
import type { ErrorPayload } from '../errors/domain-error.js';
import { isBlobRef, type BlobRef } from '../jobs/payload-blobs.js';
import { Subjects } from './subjects.js';
import type { CommandEnvelope, CommandOutcome } from './envelope.js';

/**
 * A request to an owner's replay feed (replayFeedSubject): recorded commands of that owner, in the order to apply
 * them. With `dryRun` nothing is applied; each result then only says whether the command was applied before.
 */
export interface ReplayFeedRequest {
  commands: ReplayFeedCommand[];
  dryRun?: boolean;
}

export interface ReplayFeedCommand {
  subject: string;
  envelope: CommandEnvelope;
  /**
   * What the live application of this command decided where its effect depended on a race rather than on the
   * commands before it (recordedDecisionOf), read from its recorded outcome: the handler follows it instead of
   * choosing again (docs/adr/0028-recorded-take-decisions.md). Absent: the handler decides as it does live.
   */
  decided?: RecordedDecision;
}

/**
 * One result per command, in order: its outcome and whether this request applied it (false: it had been applied
 * before, the outcome is the recorded one); `outcome: null` in a dry run for a command not applied yet; `error`
 * when it could not be applied (an infrastructure failure: nothing of it was recorded).
 */
export type ReplayFeedResult =
  { outcome: CommandOutcome; applied: boolean } | { outcome: null; applied: false } | { error: string };

/**
 * A `worker.cmd.take`'s decision (and a submit's with a piggy-backed take): the jobs it leased, in the order it handed
 * them out. Live, takes of different workers of one endpoint run in parallel lanes and pick queued jobs with FOR UPDATE SKIP LOCKED, so which take
 * gets which job is decided by which transaction locked first, something no order of the commands reproduces.
 */
export interface TakeDecision {
  jobIds: string[];
}

/**
 * A `worker.cmd.collect-stops`'s decision: the jobs it handed to job-stop (`jobsToStop`). A cancel or a timeout on
 * another lane marks a job's stop pending; whether the collect's statement saw that mark depended on which
 * committed first, not on the order of the commands.
 */
export type StopsDecision = TakeDecision;

/**
 * A `job.cmd.purge`'s decision: the queued jobs it removed (PurgeOutcome.jobIds). A submit committed while the
 * purge's statement ran was seen or not by timing.
 */
export type PurgeDecision = TakeDecision;

/**
 * A command refused live because something it needed did not answer (DEPENDENCY_UNAVAILABLE: an owner it asked was
 * restarting, say): the refusal was its effect, so a rebuild records the same refusal instead of applying the
 * command against dependencies that answer now.
 */
export interface RefusalDecision {
  refused: ErrorPayload;
}

/** A take's, a collect's or a purge's jobs (one shape: `{ jobIds }`), or a refusal. */
export type RecordedDecision = TakeDecision | RefusalDecision;

/** Whether `decided` (from a replay request) is a recorded DEPENDENCY_UNAVAILABLE refusal. */
export function isRefusalDecision(decided: unknown): decided is RefusalDecision {
  const refused = (decided as { refused?: Partial<ErrorPayload> } | null)?.refused;
  return refused?.code === ErrorCode.DependencyUnavailable && typeof refused.message === 'string';
}

/**
 * A take's answer when it was too large for one message (PayloadBlobs): the blob, plus the ids of the jobs it
 * leased, so that the recorded outcome still says what was decided once the blob is read and removed.
 */
export interface TakeBlobRef extends BlobRef {
  jobIds: string[];
}

/**
 * The decision a recorded outcome shows for a command whose effect depends on a race (a take, a collect of stops)
 * or on a dependency's absence (a DEPENDENCY_UNAVAILABLE refusal), or
 * undefined: not such a command, not applied, failed, or a packed answer of an older release (no ids beside the
 * blob), which the owner then decides again.
 */
export function recordedDecisionOf(
  subject: string,
  outcome: CommandOutcome | undefined,
): RecordedDecision | undefined {
  if (outcome && !outcome.ok && outcome.error.code === ErrorCode.DependencyUnavailable) {
    return { refused: outcome.error };
  }
  if (subject === Subjects.worker.collectStops && outcome?.ok) {
    const stops = { jobIds: (outcome.value as { jobsToStop?: unknown } | null)?.jobsToStop };
    return isTakeDecision(stops) ? stops : undefined;
  }
  if (subject === Subjects.job.purge && outcome?.ok) {
    const purged = { jobIds: (outcome.value as { jobIds?: unknown } | null)?.jobIds };
    return isTakeDecision(purged) ? purged : undefined;
  }
  if (!outcome?.ok) return undefined;
  if (subject === Subjects.worker.take) return takeDecisionOf(outcome.value);
  // A submit with a piggy-backed take (SubmitJobCommand.take) decided that take's jobs as a take does.
  if (subject === Subjects.job.submit) {
    const taken = (outcome.value as { taken?: unknown } | null)?.taken;
    return taken === undefined ? undefined : takeDecisionOf(taken);
  }
  return undefined;
}

/** The jobs a take's answer (inline, or packed with its ids beside the blob) leased; undefined if it names none. */
function takeDecisionOf(answer: unknown): TakeDecision | undefined {
  const value = answer as { jobs?: unknown; jobIds?: unknown } | null;
  if (isBlobRef(value)) return isTakeDecision(value) ? { jobIds: value.jobIds } : undefined;
  if (!value || !Array.isArray(value.jobs)) return undefined;
  const decision = { jobIds: value.jobs.map((job) => (job as { id?: unknown } | null)?.id) };
  return isTakeDecision(decision) ? decision : undefined;
}

/** Whether `decided` (from a replay request: checked, not trusted) names the jobs of a take. */
export function isTakeDecision(decided: unknown): decided is TakeDecision {
  const ids = (decided as { jobIds?: unknown } | null)?.jobIds;
  return Array.isArray(ids) && ids.every((id) => typeof id === 'string' && id.length > 0);
}
