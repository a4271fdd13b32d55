import type pg from 'pg';
import { sendRaw } from './http.js';

/**
 * What the fuzz cases must leave unchanged: each user's resources as their listings show them (ids and what the
 * user asked for, not statuses that move on their own), user A's job, and the row count of every table that
 * holds state (bookkeeping tables excluded: migrations, processed commands, outboxes, rate-limit counters, the
 * audit trail, which enters every refused command as processed_commands records it (ADR 35), and the endpoint
 * metrics, which the broker's sampler adds to every few seconds whatever the requests, ADR 22).
 */
export interface StateSnapshot {
  listings: Record<string, string[]>;
  rows: Record<string, number>;
}

const SCHEMAS = ['gateway', 'cluster_scheduler', 'pod_lifecycle', 'queue_broker', 'endpoint_autoscaler'];
const BOOKKEEPING = new Set([
  'migrations',
  'processed_commands',
  'outbox',
  'audit_entries',
  'rate_limit_counters',
  'fleet_loads',
  'endpoint_metric_rollups',
  'metrics_cursors',
  'metrics_cold_starts',
]);

type Row = Record<string, unknown>;

/** Each listing: its path, how a row reads, and the wrapper's field for a wrapped list (RunPod's v2 lists). */
const LISTINGS: [string, (row: Row) => string, string?][] = [
  ['/v1/pods?includeTerminated=true', (p) => `${String(p.id)} desired=${String(p.desiredStatus)}`],
  ['/v1/templates', (t) => `${String(t.id)} ${String(t.name)}`],
  ['/v1/containerregistryauth', (r) => `${String(r.id)} ${String(r.name)}`],
  ['/v1/networkvolumes', (v) => `${String(v.id)} ${String(v.name)} ${String(v.size)}`],
  ['/v1/user/ssh-keys', (k) => `${String(k.id)} ${String(k.fingerprint)}`],
  ['/v2/clusters', (c) => `${String(c.id)} ${String(c.name)}`, 'clusters'],
];

export async function snapshot(
  gateway: string,
  sql: pg.Pool,
  users: Record<string, string>,
  job: { endpointId: string; jobId: string; key: string },
): Promise<StateSnapshot> {
  const listings: Record<string, string[]> = {};
  for (const [user, key] of Object.entries(users)) {
    for (const [path, line, wrapper] of LISTINGS) {
      const reply = await sendRaw(gateway, {
        method: 'GET',
        path,
        headers: { authorization: `Bearer ${key}` },
      });
      if (reply.status !== 200) throw new Error(`GET ${path} as ${user}: ${reply.status} ${reply.text}`);
      const body = JSON.parse(reply.text) as Row[] | Record<string, Row[]>;
      const rows = wrapper ? (body as Record<string, Row[]>)[wrapper] : (body as Row[]);
      listings[`${user} ${path}`] = rows.map(line).sort();
    }
  }
  const status = await sendRaw(gateway, {
    method: 'GET',
    path: `/v2/${job.endpointId}/status/${job.jobId}`,
    headers: { authorization: `Bearer ${job.key}` },
  });
  listings["A's job"] = [`${status.status} ${String((JSON.parse(status.text) as Row).status)}`];

  const tables = await sql.query<{ schema: string; name: string }>(
    `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
      WHERE table_schema = ANY($1) AND table_type = 'BASE TABLE' ORDER BY 1, 2`,
    [SCHEMAS],
  );
  const rows: Record<string, number> = {};
  for (const { schema, name } of tables.rows) {
    if (BOOKKEEPING.has(name)) continue;
    const result = await sql.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}"."${name}"`);
    rows[`${schema}.${name}`] = Number(result.rows[0].n);
  }
  return { listings, rows };
}

/** The differences between two snapshots, one line each. */
export function stateChanges(before: StateSnapshot, after: StateSnapshot): string[] {
  const changes: string[] = [];
  for (const [name, lines] of Object.entries(after.listings)) {
    const was = before.listings[name] ?? [];
    const added = lines.filter((l) => !was.includes(l));
    const removed = was.filter((l) => !lines.includes(l));
    if (added.length) changes.push(`${name}: added ${added.join(', ')}`);
    if (removed.length) changes.push(`${name}: removed ${removed.join(', ')}`);
  }
  for (const [table, count] of Object.entries(after.rows)) {
    if (before.rows[table] !== count) changes.push(`${table}: ${before.rows[table] ?? 0} rows → ${count}`);
  }
  return changes;
}
