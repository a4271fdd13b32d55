// BENCH_COUNTS=1: what a job costs in messages and transactions, counted over a timed batch (the replicas
// scenario prints them per round). CPU per job on a shared 2-core machine moves with the load; these counts do not.
//   NATS   every message published on the run's prefix (a core subscription to `<prefix>.>` in the harness), by
//          kind: commands (as recorded), relayed events, hints, outcomes, queries and their replies are not on
//          the prefix and not counted; JetStream deliveries and acks go to inboxes and are not counted either;
//   pg     transactions committed in the run's database (pg_stat_database.xact_commit, every app and the
//          harness's own polling included), read after the statistics collector's flush interval.
import { sleep } from './jobs-load.mjs';

const STATS_FLUSH_MS = 1100;

/** The kind of a message by its subject below the prefix: `cmd:<domain>.<name>`, `evt`, `hint`, `outcome`, ... */
function kindOf(rest) {
  const parts = rest.split('.');
  if (parts[0] === 'hint') return `hint:${parts.slice(1).join('.')}`;
  if (parts[0] === 'outcome') return 'outcome';
  if (parts[1] === 'cmd') return `cmd:${parts[0]}.${parts[2]}`;
  if (parts[1] === 'evt') return `evt:${parts[0]}.${parts[2]}`;
  return parts[0];
}

async function xactCommits(sql) {
  const client = await sql.connect();
  try {
    await client.query('SELECT pg_stat_clear_snapshot()');
    const { rows } = await client.query(
      'SELECT xact_commit::float8 AS n FROM pg_stat_database WHERE datname = current_database()',
    );
    return rows[0].n;
  } finally {
    client.release();
  }
}

/** Null unless BENCH_COUNTS is set; else `{ start(), stop(jobs) }`, stop resolving counts per job. */
export function pathCounter(ctx) {
  if (!process.env.BENCH_COUNTS) return null;
  const counts = new Map();
  let bytes = 0;
  let sub = null;
  let xactBefore = 0;
  const prefix = `${ctx.natsPrefix}.`;
  return {
    async start() {
      counts.clear();
      bytes = 0;
      await sleep(STATS_FLUSH_MS);
      xactBefore = await xactCommits(ctx.sql);
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
      const xacts = (await xactCommits(ctx.sql)) - xactBefore;
      const perJob = (n) => Math.round((n / jobs) * 100) / 100;
      const total = [...counts.values()].reduce((a, b) => a + b, 0);
      return {
        xactPerJob: perJob(xacts),
        natsPerJob: perJob(total),
        natsBytesPerJob: Math.round(bytes / jobs),
        byKind: Object.fromEntries(
          [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([kind, n]) => [kind, perJob(n)]),
        ),
      };
    },
  };
}
