import pg from 'pg';
import { type FaultSystem } from './fault-system.js';

// ---------------------------------------------------------------------------------------------------------------
// What the database says

export interface JobOutcomes {
  /** Accepted jobs not found in the broker's table at all. */
  missing: number;
  /** Accepted jobs still IN_QUEUE or IN_PROGRESS. */
  open: number;
  /** Accepted jobs by final status. */
  byStatus: Record<string, number>;
  /** Accepted jobs with more than one accepted (COMPLETED) attempt. */
  completedTwice: number;
  /** COMPLETED accepted jobs whose output is not their input (the echo the workers answer). */
  wrongOutput: number;
  /** Late or repeated results the broker ignored for these jobs. */
  ignoredResults: number;
}

export async function jobOutcomes(sql: pg.Pool, ids: readonly string[]): Promise<JobOutcomes> {
  const statuses = await sql.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM queue_broker.jobs WHERE id = ANY($1) GROUP BY status',
    [ids],
  );
  const byStatus = Object.fromEntries(statuses.rows.map((r) => [r.status, Number(r.n)]));
  const found = Object.values(byStatus).reduce((a, b) => a + b, 0);
  const twice = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT job_id FROM queue_broker.job_attempts
      WHERE job_id = ANY($1) AND outcome = 'COMPLETED' GROUP BY job_id HAVING count(*) > 1) t`,
    [ids],
  );
  const wrong = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM queue_broker.jobs
      WHERE id = ANY($1) AND status = 'COMPLETED' AND output IS DISTINCT FROM input`,
    [ids],
  );
  const ignored = await sql.query<{ n: string }>(
    'SELECT count(*) AS n FROM queue_broker.ignored_results WHERE job_id = ANY($1)',
    [ids],
  );
  return {
    missing: ids.length - found,
    open: (byStatus.IN_QUEUE ?? 0) + (byStatus.IN_PROGRESS ?? 0),
    byStatus,
    completedTwice: Number(twice.rows[0].n),
    wrongOutput: Number(wrong.rows[0].n),
    ignoredResults: Number(ignored.rows[0].n),
  };
}

/**
 * Why accepted jobs did not complete, for a failing scenario's output: each such job's row (status, error,
 * attempts, retries, last worker) and the lines of every queue-broker replica's log that name it (at most `max`
 * jobs, 10 lines each), after how many job-takes the gateways gave up waiting for.
 */
export async function explainNotCompleted(fs: FaultSystem, ids: readonly string[], max = 5): Promise<string> {
  const { rows } = await fs.sql.query<{
    id: string;
    status: string;
    error: string | null;
    attempts: number;
    retries: number;
    last_worker_id: string | null;
  }>(
    `SELECT id, status, error, attempts, retries, last_worker_id FROM queue_broker.jobs
      WHERE id = ANY($1) AND status <> 'COMPLETED' ORDER BY queued_at LIMIT $2`,
    [ids, max],
  );
  const logs = fs.system.apps.includes('queue-broker') ? fs.system.logs('queue-broker').split('\n') : [];
  // A take the gateway gave up waiting for may still be applied by the broker later: a lease the worker never got.
  const takeWaits = fs.system.apps.includes('gateway')
    ? fs.system
        .logs('gateway')
        .split('\n')
        .filter((line) => line.includes('job-take of worker') && line.includes('waits')).length
    : 0;
  const header = `(the gateways logged ${takeWaits} job-take(s) that gave up waiting for the broker)`;
  return [
    header,
    ...rows.map((row) => {
      const lines = logs.filter((line) => line.includes(row.id)).slice(0, 10);
      return [
        `job ${row.id}: ${row.status} after ${row.attempts} attempt(s), ${row.retries} retr(ies), last worker ${row.last_worker_id}: ${row.error}`,
        ...lines.map((line) => `  | ${line}`),
      ].join('\n');
    }),
  ].join('\n');
}

/**
 * Of the jobs in `ranTwice` (run more than once by the scenario's workers), how many have no attempt the broker
 * ended WORKER_LOST: run twice although no worker was declared lost (a lease taken back as UNCONFIRMED, say).
 */
export async function ranTwiceWithoutLostWorker(sql: pg.Pool, ranTwice: readonly string[]): Promise<number> {
  const { rows } = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM (SELECT job_id FROM queue_broker.job_attempts WHERE job_id = ANY($1)
      GROUP BY job_id HAVING NOT bool_or(outcome IS NOT DISTINCT FROM 'WORKER_LOST')) t`,
    [ranTwice],
  );
  return Number(rows[0].n);
}

export interface PlacementLedger {
  /** Hosts whose reserved GPUs exceed their GPUs (a GPU booked twice), or whose free count disagrees. */
  gpuDoubleBooked: number;
  ledgerMismatches: number;
  /** Host ports held twice or outside the host's range. */
  portProblems: number;
  /** Live clusters without exactly pod_count members and reservations. */
  incompleteClusters: number;
  liveClusters: number;
  /** Live clusters sharing a VXLAN id or an overlapping CIDR. */
  overlayClashes: number;
  reservedGpus: number;
}

/** Reads the cluster-scheduler's schema: what is really reserved, and whether it adds up. */
export async function placementLedger(sql: pg.Pool): Promise<PlacementLedger> {
  const hosts = await sql.query<{ gpu_count: number; free_gpus: number; held: string }>(
    `SELECT h.gpu_count, h.free_gpus,
            coalesce((SELECT sum(r.gpu_count) FROM cluster_scheduler.reservations r WHERE r.host_id = h.id), 0) AS held
       FROM cluster_scheduler.hosts h`,
  );
  const ports = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM cluster_scheduler.hosts h
      WHERE h.free_ports + (SELECT count(*) FROM cluster_scheduler.host_ports p WHERE p.host_id = h.id)
            <> h.port_end - h.port_start + 1
         OR EXISTS (SELECT 1 FROM cluster_scheduler.host_ports p
                     WHERE p.host_id = h.id AND (p.port < h.port_start OR p.port > h.port_end))`,
  );
  const clusters = await sql.query<{ n: string; incomplete: string }>(
    `SELECT count(*) AS n,
            count(*) FILTER (WHERE
              (SELECT count(*) FROM cluster_scheduler.cluster_members m WHERE m.cluster_id = c.id) <> c.pod_count
              OR (SELECT count(*) FROM cluster_scheduler.reservations r WHERE r.cluster_id = c.id) <> c.pod_count
            ) AS incomplete
       FROM cluster_scheduler.clusters c WHERE c.deleted_at IS NULL`,
  );
  const clashes = await sql.query<{ n: string }>(
    `SELECT count(*) AS n FROM cluster_scheduler.clusters a JOIN cluster_scheduler.clusters b
        ON a.id < b.id AND (a.cidr && b.cidr OR a.vxlan_id = b.vxlan_id)
      WHERE a.deleted_at IS NULL AND b.deleted_at IS NULL`,
  );
  return {
    gpuDoubleBooked: hosts.rows.filter((h) => Number(h.held) > h.gpu_count).length,
    ledgerMismatches: hosts.rows.filter((h) => h.free_gpus + Number(h.held) !== h.gpu_count).length,
    portProblems: Number(ports.rows[0].n),
    incompleteClusters: Number(clusters.rows[0].incomplete),
    liveClusters: Number(clusters.rows[0].n),
    overlayClashes: Number(clashes.rows[0].n),
    reservedGpus: hosts.rows.reduce((sum, h) => sum + Number(h.held), 0),
  };
}
