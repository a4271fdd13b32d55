import { describe, expect, it } from '@jest/globals';
import { describeRebuild, rebuildDetail, runRebuild } from './support/random-history/rebuild-report.js';
import { runHistory } from './support/random-history/history-run.js';
import { startHistorySystem } from './support/random-history/history-system.js';
import { recordVerdict } from './support/verdict.js';
import { HELD_BY_DELETED_TEAMS, QUOTA_BREACHES } from '../support/quota-ledger-checks.js';

/**
 * Issue 14's randomized history: for each seed, the running system (all five apps) is driven by a seeded random
 * mix of every command family (users, keys, SSH keys, templates, registry credentials, network volumes, pods and
 * their actions, clusters, endpoints created, edited and deleted, jobs that finish, fail, stream, are cancelled,
 * time out, or kill their worker, workers killed with SIGKILL mid-job; quotas set and cleared by an operator, pods
 * and clusters of every priority, interruptible pods, so placements are refused by quota and preempt), while the queue-broker, pod-lifecycle and
 * the endpoint-autoscaler are each killed (SIGKILL) and restarted once. Then `npm run replay -- rebuild` must
 * rebuild every owner's database from the recorded commands identically: every outcome as live, every table equal,
 * a second pass applying nothing. A failing seed is printed with the line that runs it again:
 *
 *   HISTORY_SEEDS=282025 HISTORY_REPLICAS=2 HISTORY_COMMANDS=2000 npm run test:faults -- --testPathPatterns random-history
 *
 * Processes of each app per seed (`HISTORY_REPLICAS`: one number for every seed, or one per seed): two of every app,
 * as in the other scenarios, so that a rebuild must also equal what two consumers of each domain applied side by
 * side (seed 1411 on two replicas found a reserve that read before its lock, which one replica never showed).
 * `HISTORY_REPLICAS=1` runs one of each, 15–40 s less per seed on the 2-core CI machine.
 */
const SEEDS = (process.env.HISTORY_SEEDS || '1411,282025,90210').split(',').map(Number);
const COMMANDS = Number(process.env.HISTORY_COMMANDS || 2000);
const REPLICAS = (process.env.HISTORY_REPLICAS || '2').split(',').map(Number);
const replicasOf = (index: number) => (REPLICAS.length === 1 ? REPLICAS[0] : REPLICAS[index]);
if (
  SEEDS.some((s) => !Number.isInteger(s)) ||
  !Number.isInteger(COMMANDS) ||
  COMMANDS < 1 ||
  (REPLICAS.length !== 1 && REPLICAS.length !== SEEDS.length) ||
  REPLICAS.some((r) => !Number.isInteger(r) || r < 1)
) {
  throw new Error(
    `HISTORY_SEEDS=${process.env.HISTORY_SEEDS} HISTORY_COMMANDS=${process.env.HISTORY_COMMANDS} ` +
      `HISTORY_REPLICAS=${process.env.HISTORY_REPLICAS} (one number, or one per seed)`,
  );
}

describe('randomized history, rebuilt from its recorded commands', () => {
  it.each(SEEDS.map((seed, i) => [seed, replicasOf(i)]))(
    'seed %i, %i replica(s) of every app: the rebuild is identical to the live system',
    async (seed, replicas) => {
      const started = Date.now();
      const hs = await startHistorySystem(`history${seed}`, replicas);
      try {
        const history = await runHistory(hs, seed, COMMANDS);
        const historyMs = Date.now() - started;
        // The GPU ledger after the history (ADR 37): whole, within every quota, nothing held by a deleted team.
        const breaches = (await hs.sql.query<{ breach: string }>(QUOTA_BREACHES)).rows.map((r) => r.breach);
        const orphans = (await hs.sql.query<{ owner_id: string }>(HELD_BY_DELETED_TEAMS)).rows.length;
        // What the history made of quotas: placements refused by one, workloads preempted (reported, not required).
        const [quotaWork] = (
          await hs.sql.query<{ refused: number; preempted: number; fleet: number; hostChanges: number }>(
            `SELECT (SELECT count(*)::int FROM cluster_scheduler.processed_commands
                      WHERE outcome::text LIKE '%QUOTA_EXCEEDED%') AS refused,
                    (SELECT count(*)::int FROM cluster_scheduler.preemptions) AS preempted,
                    (SELECT count(*)::int FROM cluster_scheduler.processed_commands
                      WHERE subject LIKE 'fleet.cmd.%') AS fleet,
                    (SELECT count(*)::int FROM cluster_scheduler.outbox
                      WHERE subject LIKE '%fleet.evt.host-changed') AS "hostChanges"`,
          )
        ).rows;
        const summary = await runRebuild(hs.replayEnv);
        const identical =
          summary.code === 0 &&
          summary.differences.length === 0 &&
          summary.outcomeMismatches.length === 0 &&
          summary.secondPass.applied === 0;
        const pass = identical && summary.commands >= COMMANDS && !breaches.length && orphans === 0;
        recordVerdict({
          name: `random history, seed ${seed}${replicas > 1 ? ` (${replicas} replicas)` : ''}`,
          pass,
          counts: {
            commands: summary.commands,
            notAppliedLive: summary.notAppliedLive,
            later: summary.later.recorded,
            outcomeMismatches: summary.outcomeMismatches.length,
            tableDifferences: summary.differences.length,
            ledgerBreaches: breaches.length,
            heldByDeletedTeams: orphans,
            quotaRefused: quotaWork.refused,
            preempted: quotaWork.preempted,
            fleetCommands: quotaWork.fleet,
            hostChanges: quotaWork.hostChanges,
            secondPassApplied: summary.secondPass.applied,
            restarts: history.restarts.length,
            workerKills: history.workerKills,
            status0: history.statuses['0'] ?? 0,
            status5xx: Object.entries(history.statuses)
              .filter(([s]) => s.startsWith('5'))
              .reduce((n, [, c]) => n + c, 0),
            refusedUnavailable: history.statuses['graphql:SERVICE_UNAVAILABLE'] ?? 0,
            clientErrors: history.errors.length,
            historySeconds: Math.round(historyMs / 1000),
            totalSeconds: Math.round((Date.now() - started) / 1000),
          },
          ...(pass ? {} : { detail: rebuildDetail(seed, COMMANDS, replicas, summary) }),
        });
        if (!pass) {
          console.error(
            `${describeRebuild(seed, COMMANDS, replicas, summary)}\nactions ${JSON.stringify(history.actions)}\n` +
              `statuses ${JSON.stringify(history.statuses)}\nerrors ${history.errors.slice(0, 5).join('\n')}`,
          );
        }
        expect(history.restarts).toHaveLength(3);
        expect(summary.commands).toBeGreaterThanOrEqual(COMMANDS);
        expect({ seed, identical }).toEqual({ seed, identical: true });
        expect({ seed, breaches, orphans }).toEqual({ seed, breaches: [], orphans: 0 });
      } finally {
        await hs.close();
      }
    },
    600_000,
  );
});
