import type pg from 'pg';
import type { AppName } from '@app/contracts';
import type { RunningSystem } from '../../support/system.js';
import { sleep } from './fault-calls.js';

/** `leader_is_leading{name="…"}` of one replica, from its /metrics (libs/observability coordinationMetrics). */
export async function leads(
  system: RunningSystem,
  app: AppName,
  replica: number,
  name: string,
): Promise<boolean> {
  try {
    const response = await fetch(system.metricsUrl(app, replica), { signal: AbortSignal.timeout(2000) });
    const text = await response.text();
    return new RegExp(`^leader_is_leading\\{name="${name}"\\} 1$`, 'm').test(text);
  } catch {
    return false;
  }
}

/** The replica leading `name` now, or null when none does (or none answers) within `timeoutMs`. */
export async function leaderReplica(
  system: RunningSystem,
  app: AppName,
  name: string,
  timeoutMs = 15_000,
): Promise<number | null> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (let replica = 0; replica < system.replicas(app); replica++) {
      if (system.isRunning(app, replica) && (await leads(system, app, replica, name))) return replica;
    }
    await sleep(100);
  }
  return null;
}

/**
 * How long after `since` another running replica than `formerLeader` leads `name`: the takeover a client of the
 * singleton waits through. Null when none does within `timeoutMs`.
 */
export async function takeoverMs(
  system: RunningSystem,
  app: AppName,
  name: string,
  formerLeader: number,
  since: number,
  timeoutMs = 30_000,
): Promise<number | null> {
  while (Date.now() - since < timeoutMs) {
    for (let replica = 0; replica < system.replicas(app); replica++) {
      if (replica === formerLeader || !system.isRunning(app, replica)) continue;
      if (await leads(system, app, replica, name)) return Date.now() - since;
    }
    await sleep(50);
  }
  return null;
}

export interface MemberPods {
  /** The unsettled ones, for the failure message: `pod status (cluster deleted|live)`. */
  details: string[];
  /** Member pods expected (pod_count of every created cluster) that pod-lifecycle has no row of. */
  missing: number;
  /** Member pods not where their cluster says they should end: TERMINATED once deleted, RUNNING while it lives. */
  unsettled: number;
}

/** Whether every pod of the given clusters exists in pod-lifecycle and reached the status its cluster implies. */
export async function memberPods(sql: pg.Pool, clusterIds: readonly string[]): Promise<MemberPods> {
  const { rows } = await sql.query<{ expected: string; found: string; unsettled: string }>(
    `SELECT coalesce(sum(c.pod_count), 0) AS expected,
            (SELECT count(*) FROM pod_lifecycle.pods p WHERE p.cluster_id = ANY($1)) AS found,
            (SELECT count(*) FROM pod_lifecycle.pods p JOIN cluster_scheduler.clusters k ON k.id = p.cluster_id
              WHERE p.cluster_id = ANY($1)
                AND p.status <> CASE WHEN k.deleted_at IS NULL THEN 'RUNNING' ELSE 'TERMINATED' END) AS unsettled
       FROM cluster_scheduler.clusters c WHERE c.id = ANY($1)`,
    [clusterIds],
  );
  const unsettled = Number(rows[0].unsettled);
  const details = unsettled
    ? (
        await sql.query<{ id: string; status: string; generation: number; deleted: boolean }>(
          `SELECT p.id, p.status, p.generation, k.deleted_at IS NOT NULL AS deleted
             FROM pod_lifecycle.pods p JOIN cluster_scheduler.clusters k ON k.id = p.cluster_id
            WHERE p.cluster_id = ANY($1)
              AND p.status <> CASE WHEN k.deleted_at IS NULL THEN 'RUNNING' ELSE 'TERMINATED' END`,
          [clusterIds],
        )
      ).rows.map((r) => `${r.id} ${r.status} run ${r.generation} (cluster ${r.deleted ? 'deleted' : 'live'})`)
    : [];
  return { missing: Number(rows[0].expected) - Number(rows[0].found), unsettled, details };
}
