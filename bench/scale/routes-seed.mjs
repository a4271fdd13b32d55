// The large account's history for the routes measure (bench/scale/routes.mjs), written with SQL in the shapes the
// owner apps write (pod-lifecycle's pods and usage intervals, cluster-scheduler's clusters and members, the
// gateway's audit entries), dated over the last 90 days, then vacuumed and analyzed as a live history long has been.
//
// The mix of `pods` pods (all the account's):
//   0.2 % RUNNING standalone pods (an open usage interval each; no host: nothing in the scheduler holds for them)
//   1 %   EXITED standalone pods (stopped, kept for their disks: the disk interval still open)
//   4 %   cluster members, 4 to a cluster; a cluster in fifty is live (its members RUNNING), the rest deleted
//   10 %  serverless workers of 20 endpoints, all TERMINATED (live workers are the autoscaler's, not seeded here)
//   the rest TERMINATED standalone pods
// Every pod has a compute and a disk interval (pod_usage), closed when it stopped.
// Audit entries: half the account's (pod, cluster, endpoint and template commands, one in twenty refused, one in
// seven a machine's), the other half spread over 1,000 other accounts, in time order as a trail is appended.

/** Share of the pods that are cluster members, and members per cluster. */
const MEMBER_SHARE = 0.04;
const CLUSTER_SIZE = 4;
const WORKER_ENDPOINTS = 20;
const DAY_MINUTES = 24 * 60;
const HISTORY_DAYS = 90;

const timed = async (log, what, work) => {
  const started = performance.now();
  const result = await work();
  log(`routes: ${what} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result;
};

/** Standalone pods and workers: `n` rows numbered 1..n; the kind is the number modulo 100 (see above). */
async function seedPods(sql, accountId, n) {
  await sql.query(
    `INSERT INTO pod_lifecycle.pods (id, owner_id, name, image, env, ports, port_mappings, container_disk_gb,
       gpu_type_id, gpu_count, status, desired_status, generation, disk_epoch, last_status_change, last_started_at,
       created_at, compute_per_hr, container_disk_per_gb_hr, endpoint_id)
     SELECT 'scale-pod-' || g, $1, 'pod ' || g, 'runpod/pytorch:2.4', '{"RUN": "1"}', '["8888/http","22/tcp"]', '[]',
       20, 'AMPERE_16', 1 + g % 2, s.status, s.status, 1, 1, CASE WHEN s.status = 'RUNNING' THEN t
       ELSE t + (60 + g % 180) * interval '1 minute' END, t, t, 0.2 * (1 + g % 2), 0.00014,
       CASE WHEN g % 100 BETWEEN 6 AND 15 THEN 'scale-ep-' || (g % ${WORKER_ENDPOINTS}) END
     FROM generate_series(1, $2::int) g,
       LATERAL (SELECT now() - ((g::bigint * 7919) % ($3::int * ${DAY_MINUTES})) * interval '1 minute' AS t,
         CASE WHEN g % 500 = 0 THEN 'RUNNING' WHEN g % 100 = 1 THEN 'EXITED' ELSE 'TERMINATED' END AS status) s`,
    [accountId, n, HISTORY_DAYS],
  );
}

/** `clusters` clusters of CLUSTER_SIZE members: each its cluster-scheduler rows and its members' pods. */
async function seedClusters(sql, accountId, clusters) {
  // A live cluster's block and VXLAN id are unique among live ones (the allocator's pool: 10.128.0.0/12, /28s).
  await sql.query(
    `INSERT INTO cluster_scheduler.clusters (id, owner_id, name, type, gpu_type_id, gpu_count_per_pod, pod_count,
       data_center_id, cidr, vxlan_id, vxlan_port, image, disk, env, ports, start_jupyter, start_ssh, created_at,
       deleted_at)
     SELECT 'scale-cl-' || c, $1, 'cluster ' || c, 'TRAINING', 'AMPERE_80', 8, ${CLUSTER_SIZE}, 'US-TX-1',
       (host('10.128.0.0'::inet + c * 16) || '/28')::cidr, 100000 + c, 4789, 'runpod/pytorch:2.4', 40, '{}',
       ARRAY['22/tcp'], false, true, t, CASE WHEN c % 50 <> 1 THEN t + (2 + c % 10) * interval '1 hour' END
     FROM generate_series(1, $2::int) c,
       LATERAL (SELECT now() - ((c::bigint * 7919) % ($3::int * ${DAY_MINUTES})) * interval '1 minute' AS t) x`,
    [accountId, clusters, HISTORY_DAYS],
  );
  const member = `SELECT 'scale-cpod-' || c.id || '-' || r AS pod_id, c.id AS cluster_id, r AS rank,
       CASE WHEN r = 0 THEN 'primary' ELSE 'worker' END AS role, c.name || '-' || r AS name,
       host(c.cidr + 1 + r) AS overlay_ip, 'scale-host-' || (r % 7) AS host_id, c.created_at,
       CASE WHEN c.deleted_at IS NULL THEN 'RUNNING' ELSE 'TERMINATED' END AS status,
       COALESCE(c.deleted_at, c.created_at) AS status_at
     FROM cluster_scheduler.clusters c, generate_series(0, ${CLUSTER_SIZE - 1}) r WHERE c.owner_id = $1`;
  await sql.query(
    `INSERT INTO cluster_scheduler.cluster_members (pod_id, cluster_id, rank, role, name, overlay_ip, host_id,
       public_ip, port_mappings, env, status, status_at, created_at)
     SELECT pod_id, cluster_id, rank, role, name, overlay_ip::inet, host_id, '192.0.2.10', '[]', '{}', status,
       status_at, created_at FROM (${member}) m`,
    [accountId],
  );
  await sql.query(
    `INSERT INTO pod_lifecycle.pods (id, owner_id, name, image, env, ports, port_mappings, container_disk_gb,
       gpu_type_id, gpu_count, status, desired_status, generation, disk_epoch, last_status_change, last_started_at,
       created_at, compute_per_hr, container_disk_per_gb_hr, cluster_id, cluster_rank, cluster_role, overlay_ip)
     SELECT pod_id, $1, name, 'runpod/pytorch:2.4', '{}', '["22/tcp"]', '[]', 40, 'AMPERE_80', 8, status, status, 1,
       1, status_at, created_at, created_at, 12.8, 0.00014, cluster_id, rank, role, overlay_ip FROM (${member}) m`,
    [accountId],
  );
}

/** A compute and a disk interval per pod, as pod-lifecycle meters them (ADR 21); a RUNNING pod's are open. */
async function seedUsage(sql, accountId) {
  await sql.query(
    `INSERT INTO pod_lifecycle.pod_usage (pod_id, kind, started_at, ended_at, owner_id, cluster_id, endpoint_id,
       gpu_type_id, units, rate_per_hr)
     SELECT p.id, k.kind, p.created_at, CASE WHEN p.status = 'RUNNING' OR (p.status = 'EXITED' AND k.kind = 'disk')
       THEN NULL ELSE p.last_status_change END, p.owner_id, p.cluster_id, p.endpoint_id, p.gpu_type_id,
       CASE WHEN k.kind = 'compute' THEN p.gpu_count ELSE p.container_disk_gb END,
       CASE WHEN k.kind = 'compute' THEN p.compute_per_hr ELSE p.container_disk_gb * p.container_disk_per_gb_hr END
     FROM pod_lifecycle.pods p, (VALUES ('compute'), ('disk')) k(kind)
     WHERE p.owner_id = $1`,
    [accountId],
  );
}

/**
 * `entries` audit entries, the newest now, one a few seconds apart over HISTORY_DAYS. Inserted without the
 * table's secondary indexes, which are then built again from their own definitions: the same indexes a live table
 * has (denser than ones grown entry by entry, which only makes their pages fewer), in a fraction of the time.
 */
async function seedAudit(sql, { accountId, memberIds, pods, entries }) {
  const client = await sql.connect();
  try {
    const { rows: indexes } = await client.query(
      `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i WHERE i.indrelid = 'gateway.audit_entries'::regclass AND NOT i.indisprimary`,
    );
    for (const { name } of indexes) await client.query(`DROP INDEX ${name}`);
    const actions = [
      ['pod.create', 'pod'],
      ['pod.terminate', 'pod'],
      ['pod.stop', 'pod'],
      ['pod.start', 'pod'],
      ['pod.create', 'pod'],
      ['pod.terminate', 'pod'],
      ['pod.update', 'pod'],
      ['cluster.create', 'cluster'],
      ['endpoint.save', 'endpoint'],
      ['template.update', 'template'],
    ];
    const pick = (i) =>
      `(ARRAY[${actions.map((a) => `'${a[i]}'`).join(',')}])[1 + (g / 2) % ${actions.length}]`;
    const stepMs = (HISTORY_DAYS * 86_400_000) / entries;
    await client.query(
      `INSERT INTO gateway.audit_entries (id, at, account_id, actor_user_id, actor_key_id, actor_kind, actor_reason,
         action, resource_type, resource_id, error_code, error_message, details, command_id)
       SELECT 'aud_scale' || g, now() - ($2::int - g) * $3::float8 * interval '1 millisecond',
         CASE WHEN g % 2 = 0 THEN $1 ELSE 'scale-acct-' || (g % 1000) END,
         CASE WHEN g % 7 = 0 THEN 'system' ELSE ($4::text[])[1 + g % array_length($4::text[], 1)] END,
         CASE WHEN g % 7 <> 0 THEN 'key_scale' || (g % 5) END, CASE WHEN g % 7 = 0 THEN 'system' ELSE 'user' END,
         CASE WHEN g % 7 = 0 THEN 'autoscaler: scale-up: queue depth 12 over 4 workers' END, a.action, a.type,
         CASE a.type WHEN 'pod' THEN 'scale-pod-' || (1 + (g / 3) % $5::int) WHEN 'cluster' THEN 'scale-cl-' || (g % 997)
           WHEN 'endpoint' THEN 'scale-ep-' || (g % ${WORKER_ENDPOINTS}) ELSE 'tpl_scale' || (g % 50) END,
         CASE WHEN g % 20 = 0 THEN 'CONFLICT' END, CASE WHEN g % 20 = 0 THEN 'not allowed in its status' END,
         CASE WHEN a.type = 'pod' THEN jsonb_build_object('name', 'pod ' || (g / 3)) END, 'cmd_scale' || g
       FROM generate_series(1, $2::int) g, LATERAL (SELECT ${pick(0)} AS action, ${pick(1)} AS type) a`,
      [accountId, entries, stepMs, memberIds, pods],
    );
    await client.query(`SET maintenance_work_mem = '256MB'`);
    for (const { def } of indexes) await client.query(def);
  } finally {
    client.release();
  }
}

/** Seeds the account's history (see the top of the file); logs each part's time. */
export async function seedHistory(sql, log, { accountId, memberIds, pods, auditEntries }) {
  const clusters = Math.floor((pods * MEMBER_SHARE) / CLUSTER_SIZE);
  const standalone = pods - clusters * CLUSTER_SIZE;
  await timed(log, `${standalone.toLocaleString('en')} pods`, () => seedPods(sql, accountId, standalone));
  await timed(log, `${clusters.toLocaleString('en')} clusters`, () => seedClusters(sql, accountId, clusters));
  await timed(log, 'usage intervals', () => seedUsage(sql, accountId));
  await timed(log, `${auditEntries.toLocaleString('en')} audit entries`, () =>
    seedAudit(sql, { accountId, memberIds, pods: standalone, entries: auditEntries }),
  );
  // Without it the first reads would set the hint bits of every fresh row they touch (writes, on a read route).
  await timed(log, 'vacuum and analyze', () =>
    sql.query(
      `VACUUM (ANALYZE) pod_lifecycle.pods, pod_lifecycle.pod_usage, cluster_scheduler.clusters,
         cluster_scheduler.cluster_members, gateway.audit_entries`,
    ),
  );
  return { clusters, standalone };
}
