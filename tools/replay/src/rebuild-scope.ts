/**
 * What a rebuild reproduces and compares: the schemas of the apps that own command domains, rebuilt from the
 * commands stream. The gateway owns the accounts (users, teams, members, API keys: `account.cmd.*`) and keeps the
 * audit trail (`audit_entries`) from the owners' events; what it writes directly (SSH keys, console sessions,
 * rate-limit counters and overrides) is left out below.
 */
export const REBUILT_SCHEMAS = [
  'gateway',
  'cluster_scheduler',
  'pod_lifecycle',
  'queue_broker',
  'endpoint_autoscaler',
] as const;

export interface Exclusion {
  /** `schema.table`, or `*.table` for that table in every schema. */
  table: string;
  /** Columns left out of the comparison; the whole table when absent. */
  columns?: string[];
  why: string;
}

/** Everything the comparison leaves out, and why: state that no command determines. */
export const EXCLUSIONS: readonly Exclusion[] = [
  { table: '*.migrations', why: 'migration bookkeeping, the same code on both sides' },
  {
    table: '*.processed_commands',
    columns: ['processed_at'],
    why: 'the wall-clock moment each command was applied (issue times are compared)',
  },
  {
    table: '*.outbox',
    columns: ['seq', 'published_at'],
    why: 'relay bookkeeping: local insertion counter and when the event went out',
  },
  {
    table: 'cluster_scheduler.fleet_loads',
    columns: ['loaded_at'],
    why: 'when the scheduler loaded the fleet file at boot',
  },
  {
    table: 'cluster_scheduler.hosts',
    columns: ['scheduling_since', 'registered_at'],
    why: "a seeded host's are when the scheduler seeded the fleet from the file at boot (a registered or changed host's are its command's time, compared with the processed commands)",
  },
  {
    table: 'queue_broker.webhook_deliveries',
    columns: ['attempts', 'next_attempt_at', 'locked_until', 'delivered_at', 'gave_up_at', 'last_error'],
    why: 'delivery progress of the webhook sender, which does not run in a rebuild (what is sent is compared)',
  },
  {
    table: 'endpoint_autoscaler.workers',
    why: "the autoscaler's working memory of the workers it drives, kept by its control loop (its pod commands are replayed)",
  },
  {
    table: 'endpoint_autoscaler.scaling_events',
    why: "the control loop's decision log, written by the loop, not by commands",
  },
  {
    table: 'endpoint_autoscaler.endpoint_wait_reasons',
    why: "why each endpoint's jobs wait, the control loop's judgement of its snapshot, written by the loop, not by commands",
  },
  {
    table: 'gateway.ssh_keys',
    why: "an account's SSH keys, written by their routes directly rather than by commands",
  },
  ...['console_sessions', 'sso_logins'].map((table) => ({
    table: `gateway.${table}`,
    why: 'console sign-ins and sessions: short-lived credentials the sign-in routes keep, not account state',
  })),
  ...['rate_limit_counters', 'rate_limit_overrides'].map((table) => ({
    table: `gateway.${table}`,
    why: 'rate limiting: counters of requests, and the quota overrides the keys CLI writes directly',
  })),
  ...['endpoint_metric_rollups', 'metrics_cursors', 'metrics_cold_starts'].map((table) => ({
    table: `queue_broker.${table}`,
    why: "endpoint metrics, folded from events and samples by the broker's metrics leader, which does not run in a rebuild (ADR 22)",
  })),
];

function applies(exclusion: Exclusion, schema: string, table: string): boolean {
  const [s, t] = exclusion.table.split('.');
  return t === table && (s === '*' || s === schema);
}

/** `null` when the whole table is left out; otherwise the columns to leave out (maybe none). */
export function excludedColumns(schema: string, table: string): string[] | null {
  const hits = EXCLUSIONS.filter((e) => applies(e, schema, table));
  if (hits.some((e) => !e.columns)) return null;
  return hits.flatMap((e) => e.columns ?? []);
}
