import type { CommandLog } from './command-log.js';
import {
  applyOrder,
  liveDecisions,
  liveOutcomes,
  mismatches,
  type OutcomeMismatch,
} from './live-outcomes.js';
import { REBUILT_SCHEMAS } from './rebuild-scope.js';
import { replay, type ReplayFailure, type ReplayOptions } from './replayer.js';
import { compareDatabases, openSnapshot, type ComparisonReport } from './schema-compare.js';
import type { RecordedCommand } from './selection.js';

/** How often a rebuild of a busy deployment compares again, at most, before it reports a difference. */
const ATTEMPTS = 3;
const RETRY_MS = 500;

export interface LaterCommands {
  /** Recorded in the live stream after the rebuild read it, by the last comparison. */
  recorded: number;
  /** Of those, applied live by the snapshot compared with, and so replayed before comparing. */
  replayed: number;
  /** Of those, not yet applied live at that snapshot: left out on both sides. */
  pendingLive: number;
  applied: number;
  failed: number;
  failures: ReplayFailure[];
  /** Comparisons made: more than one when the first found differences while the deployment was busy. */
  comparisons: number;
}

export interface LiveCheck {
  comparison: ComparisonReport;
  later: LaterCommands;
  outcomeMismatches: OutcomeMismatch[];
}

/**
 * Compares the rebuilt database with ONE snapshot of the live one (REPEATABLE READ), having first replayed the
 * commands recorded since the rebuild read the stream that the snapshot shows applied (a command is recorded
 * before it is applied, so they are all in the stream by then). Both sides then hold the effects of the same
 * commands, and a difference is a real one, even on a deployment that keeps working during the rebuild
 * (docs/adr/0025-replay-speed.md). While commands keep arriving, a difference is checked again against a newer
 * snapshot (up to ATTEMPTS): the events of the last commands may not have been handled live yet when the snapshot
 * was taken, and they have been in the settled rebuild.
 */
export async function compareWithLive(params: {
  log: CommandLog;
  /** The first sequence the rebuild has not read. */
  fromSeq: number;
  /** Command ids the rebuild has applied (or tried): added to as later ones are replayed. */
  replayed: Set<string>;
  liveDatabaseUrl: string;
  rebuiltUrl: string;
  replayOptions: ReplayOptions;
}): Promise<LiveCheck> {
  const { log, replayed } = params;
  const recorded: RecordedCommand[] = [];
  let nextSeq = params.fromSeq;
  const later: LaterCommands = {
    recorded: 0,
    replayed: 0,
    pendingLive: 0,
    applied: 0,
    failed: 0,
    failures: [],
    comparisons: 0,
  };
  const outcomeMismatches: OutcomeMismatch[] = [];
  for (;;) {
    const snapshot = await openSnapshot(params.liveDatabaseUrl);
    try {
      const live = await liveOutcomes(snapshot);
      // Read after the snapshot was taken: every command it shows applied is in the stream by now.
      const { lastSeq } = await log.state();
      if (lastSeq >= nextSeq) {
        for await (const command of log.read({ fromSeq: nextSeq, toSeq: lastSeq })) recorded.push(command);
        nextSeq = lastSeq + 1;
      }
      const due = applyOrder(
        recorded.filter((c) => live.has(c.envelope.commandId) && !replayed.has(c.envelope.commandId)),
        live,
      );
      if (due.length) {
        const pass = await replay(due, {
          ...params.replayOptions,
          decidedOf: liveDecisions(live),
          progressLabel: 'later commands',
        });
        for (const c of due) replayed.add(c.envelope.commandId);
        later.replayed += due.length;
        later.applied += pass.applied;
        later.failed += pass.failed;
        later.failures.push(...pass.failures);
        outcomeMismatches.push(...mismatches(due, live, pass.outcomes));
      }
      later.recorded = recorded.length;
      later.pendingLive = recorded.filter((c) => !live.has(c.envelope.commandId)).length;
      later.comparisons++;
      const comparison = await compareDatabases(snapshot, params.rebuiltUrl, REBUILT_SCHEMAS);
      const busy = recorded.length > 0;
      if (!comparison.differences.length || !busy || later.comparisons >= ATTEMPTS) {
        return { comparison, later, outcomeMismatches };
      }
    } finally {
      await snapshot.end().catch(() => undefined);
    }
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
}
