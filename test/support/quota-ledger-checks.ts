/**
 * The GPU ledger's invariants as one SQL statement over cluster-scheduler's schema, written apart from the code it
 * checks (docs/adr/0037-quotas-and-preemption.md): one row per breach, none when the ledger is whole. Every host's
 * used GPUs equal to what its reservations hold (no GPU counted twice, none lost); no account above its share plus
 * its borrowing limit (its share alone without a cohort), the default standing in for accounts without a quota; no
 * cohort above the sum of its members' shares.
 */
export const QUOTA_BREACHES = `
WITH in_force AS (
  SELECT q.account_id, q.cohort, l.*
    FROM cluster_scheduler.quotas q,
         jsonb_to_recordset(q.limits) AS l("gpuTypeId" text, "dataCenterId" text, gpus int, "borrowingLimit" int)
   WHERE q.account_id <> '*'
  UNION ALL
  SELECT h.owner_id, NULL, l.*
    FROM (SELECT DISTINCT owner_id FROM cluster_scheduler.reservations) h
    JOIN cluster_scheduler.quotas d ON d.account_id = '*',
         jsonb_to_recordset(d.limits) AS l("gpuTypeId" text, "dataCenterId" text, gpus int, "borrowingLimit" int)
   WHERE h.owner_id NOT IN (SELECT account_id FROM cluster_scheduler.quotas)
), held AS (
  SELECT owner_id, gpu_type_id, data_center_id, sum(gpu_count) AS gpus
    FROM cluster_scheduler.reservations WHERE gpu_type_id IS NOT NULL GROUP BY 1, 2, 3
), used AS (
  SELECT f.*, (SELECT coalesce(sum(h.gpus), 0) FROM held h
                WHERE h.owner_id = f.account_id AND h.gpu_type_id = f."gpuTypeId"
                  AND (f."dataCenterId" IS NULL OR h.data_center_id = f."dataCenterId")) AS held
    FROM in_force f
)
SELECT 'host ' || h.id || ': ' || (h.gpu_count - h.free_gpus) || ' used, reservations hold ' ||
       coalesce(sum(r.gpu_count), 0) AS breach
  FROM cluster_scheduler.hosts h LEFT JOIN cluster_scheduler.reservations r ON r.host_id = h.id
 GROUP BY h.id HAVING h.gpu_count - h.free_gpus <> coalesce(sum(r.gpu_count), 0)
UNION ALL
SELECT 'account ' || account_id || ' holds ' || held || ' × ' || "gpuTypeId" || ', limit ' || gpus
  FROM used
 WHERE held > gpus + CASE WHEN cohort IS NULL THEN 0 ELSE coalesce("borrowingLimit", 1000000) END
UNION ALL
SELECT 'cohort ' || cohort || ' holds ' || sum(held) || ' × ' || "gpuTypeId" || ', shares ' || sum(gpus)
  FROM used WHERE cohort IS NOT NULL
 GROUP BY cohort, "gpuTypeId", "dataCenterId" HAVING sum(held) > sum(gpus)`;

/** Reservations held by a team that no longer exists (the gateway's teams), as `owner_id` rows. */
export const HELD_BY_DELETED_TEAMS = `
SELECT DISTINCT r.owner_id FROM cluster_scheduler.reservations r
 WHERE r.owner_id LIKE 'team\\_%' AND NOT EXISTS (SELECT 1 FROM gateway.teams t WHERE t.id = r.owner_id)`;
