import type { CommandEnvelope, CommandOutcome } from './envelope.js';

/**
 * A request to an owner's replay feed (replayFeedSubject): recorded commands of that owner, in the order to apply
 * them. With `dryRun` nothing is applied; each result then only says whether the command was applied before.
 */
export interface ReplayFeedRequest {
  commands: { subject: string; envelope: CommandEnvelope }[];
  dryRun?: boolean;
}

/**
 * One result per command, in order: its outcome and whether this request applied it (false: it had been applied
 * before, the outcome is the recorded one); `outcome: null` in a dry run for a command not applied yet; `error`
 * when it could not be applied (an infrastructure failure: nothing of it was recorded).
 */
export type ReplayFeedResult =
  { outcome: CommandOutcome; applied: boolean } | { outcome: null; applied: false } | { error: string };
