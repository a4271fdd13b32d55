// BENCH_COUNTS=1: what a job costs in messages and transactions, counted over a timed batch (the replicas
// scenario prints them per round). CPU per job on a shared 2-core machine moves with the load; these counts do not.
//   NATS   every message published on the run's prefix (a core subscription to `<prefix>.>` in the harness), by
//          kind: commands (as recorded), relayed events, hints, outcomes, queries and their replies are not on
//          the prefix and not counted; JetStream deliveries and acks go to inboxes and are not counted either;
//   pg     transactions committed in the run's database (pg_stat_database.xact_commit, every app and the
//          harness's own polling included), read after the statistics collector's flush interval; rows
//          inserted, updated and deleted per table of the run's database (`tuples`, the harness's polling reads
//          none); WAL bytes (pg_stat_wal: the whole server's, so run it on a quiet machine).
import { sleep } from './jobs-load.mjs';

// A backend that goes idle flushes its statistics within PGSTAT_IDLE_INTERVAL (10 s, PostgreSQL 15).
const STATS_FLUSH_MS = 10_500;

/** The kind of a message by its subject below the prefix: `cmd:<domain>.<name>`, `evt`, `hint`, `outcome`, ... */
function kindOf(rest) {
  const parts = rest.split('.');
  if (parts[0] === 'hint') return `hint:${parts.slice(1).join('.')}`;
  if (parts[0] === 'outcome') return 'outcome';
  if (parts[1] === 'cmd') return `cmd:${parts[0]}.${parts[2]}`;
  if (parts[1] === 'evt') return `evt:${parts[0]}.${parts[2]}`;
  return parts[0];
}

/** The database's counters now: { xacts, walBytes, tables: Map<schema.table, {ins, upd, del}> }. */
async function pgCounters(sql) {
  const client = await sql.connect();
  try {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query(
      `SELECT (SELECT xact_commit::float8 FROM pg_stat_database WHERE datname = current_database()) AS xacts,
              (SELECT wal_bytes::float8 FROM pg_stat_wal) AS wal_bytes`,
    );
    const tables = await client.query(
      `SELECT schemaname || '.' || relname AS name, n_tup_ins::float8 AS ins, n_tup_upd::float8 AS upd,
              n_tup_del::float8 AS del
         FROM pg_stat_user_tables`,
    );
    return {
      xacts: rows[0].xacts,
      walBytes: rows[0].wal_bytes,
      tables: new Map(tables.rows.map(({ name, ins, upd, del }) => [name, { ins, upd, del }])),
    };
  } finally {
    client.release();
  }
}

/** Per table, `i/u/d` rows per job between two `pgCounters` readings, tables without writes left out. */
function tuplesPerJob(before, after, perJob) {
  const out = {};
  for (const [name, now] of after.tables) {
    const was = before.tables.get(name) ?? { ins: 0, upd: 0, del: 0 };
    const [ins, upd, del] = ['ins', 'upd', 'del'].map((k) => perJob(now[k] - was[k]));
    if (ins || upd || del) out[name] = `${ins}/${upd}/${del}`;
  }
  return out;
}

/** Null unless BENCH_COUNTS is set; else `{ start(), stop(jobs) }`, stop resolving counts per job. */
export function pathCounter(ctx) {
  if (!process.env.BENCH_COUNTS) return null;
  const counts = new Map();
  let bytes = 0;
  let sub = null;
  let pgBefore = null;
  const prefix = `${ctx.natsPrefix}.`;
  return {
    async start() {
      counts.clear();
      bytes = 0;
      await sleep(STATS_FLUSH_MS);
      pgBefore = await pgCounters(ctx.sql);
      sub = ctx.nc.subscribe(`${prefix}>`, {
        callback: (error, msg) => {
          if (error) return;
          const kind = kindOf(msg.subject.slice(prefix.length));
          counts.set(kind, (counts.get(kind) ?? 0) + 1);
          bytes += msg.data.length;
        },
      });
      await ctx.nc.flush();
    },
    async stop(jobs) {
      await ctx.nc.flush();
      sub?.unsubscribe();
      await sleep(STATS_FLUSH_MS);
      const pgAfter = await pgCounters(ctx.sql);
      const perJob = (n) => Math.round((n / jobs) * 100) / 100;
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      return {
        xactPerJob: perJob(pgAfter.xacts - pgBefore.xacts),
        walBytesPerJob: Math.round((pgAfter.walBytes - pgBefore.walBytes) / jobs),
        natsPerJob: perJob(total),
        natsBytesPerJob: Math.round(bytes / jobs),
        byKind: Object.fromEntries(
          [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([kind, n]) => [kind, perJob(n)]),
        ),
        tuples: tuplesPerJob(pgBefore, pgAfter, perJob),
      };
    },
  };
}
