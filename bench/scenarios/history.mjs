// Read routes over a large history: GET /v2/serverless/{id}/metrics (7d and 1h windows) and GET /v2/billing (the
// default 30 days in day buckets) with 1,000,000 finished jobs and 10,000 terminated pods (with their usage
// intervals) in the database, seeded with SQL; --quick seeds 100,000 jobs and 1,000 pods. The history belongs to
// 100 users and 100 endpoints, one of which (1 %: 10,000 jobs, 100 pods, a third of them its serverless workers)
// is the scenario's own user's (not the bench user, who owns what the other scenarios made); every endpoint has the
// rollups its history would have left (per minute for 48 h, per hour for 35 days, the retention defaults). Each round sends 200 requests one after another (100 under --quick) and
// takes their p50 and p99: the acceptance is p99 under 10 ms (issue 18).
//   ours        the gateway as deployed (auth cached, rate limiter on) → NATS → the owner's indexed read;
//   baseline    the bare Nest app on the same Fastify adapter answering a fixed body (bench/lib/bare-nest.server.mjs).
import { cpus, loadavg } from 'node:os';
import { client, createUser } from '../lib/api.mjs';
import { bareNest, benchEndpoint } from '../lib/fixtures.mjs';
import { log } from '../../scripts/lib/infra.mjs';
import { latencySummary, median } from '../lib/stats.mjs';
import { cpuSeconds } from '../lib/process-cpu.mjs';
import { quiesce } from '../lib/quiesce.mjs';
import { APP_NAMES } from '../lib/system.mjs';

const ENDPOINTS = 100;
const LIMIT_MS = 10;

async function seed(sql, { jobs, pods, endpointId, userId }) {
  // One endpoint and owner in a hundred is the bench user's; the others are anonymous history.
  const ep = (g) => `CASE WHEN ${g} % ${ENDPOINTS} = 0 THEN $1 ELSE 'hist-ep-' || (${g} % ${ENDPOINTS}) END`;
  const owner = (g) =>
    `CASE WHEN ${g} % ${ENDPOINTS} = 0 THEN $2 ELSE 'hist-user-' || (${g} % ${ENDPOINTS}) END`;
  let started = performance.now();
  await sql.query(
    `INSERT INTO queue_broker.jobs (id, endpoint_id, owner_id, sync, status, input, has_output, output,
       execution_timeout_ms, retention_ms, created_at, queued_at, started_at, finished_at, expires_at,
       delay_time_ms, execution_time_ms, last_worker_id, attempts)
     SELECT 'hist-job-' || g, ${ep('g')}, ${owner('g')}, false,
       (ARRAY['COMPLETED','COMPLETED','COMPLETED','FAILED','CANCELLED'])[1 + g % 5], '{"n": 1}', true, '{"ok": 1}',
       600000, 1800000, t, t, t + interval '40 ms', t + interval '1 s', now() + interval '30 days',
       40 + g % 200, 1000 + g % 5000, 'hist-worker-' || (g % 1000), 1
     FROM generate_series(1, $3::int) g, LATERAL (SELECT now() - (g % 604800) * interval '1 second' AS t) x`,
    [endpointId, userId, jobs],
  );
  log(`seeded ${jobs.toLocaleString('en')} jobs in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  started = performance.now();
  for (const [stepS, buckets] of [
    [60, 48 * 60],
    [3600, 35 * 24],
  ]) {
    await sql.query(
      `INSERT INTO queue_broker.endpoint_metric_rollups (endpoint_id, step_s, bucket_start, completed, failed,
         cancelled, timed_out, retried, delay_hist, exec_hist, cold_starts, cold_hist, queue_depth, oldest_age_ms,
         workers_running, workers_idle, webhooks_delivered, updated_at)
       SELECT ${ep('e')}, $2::int, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2 - b * $2),
         30 + b % 7, b % 3, b % 2, 0, b % 2, array_fill(1 + b % 3, ARRAY[24]) || ARRAY[5, 9, 4],
         array_fill(0, ARRAY[38]) || ARRAY[4, 8, 12, 8, 4, 1], b % 2, ARRAY[0, 0, 0, 0, 0, 0, 0, 0, 1],
         b % 11, (b % 11) * 1000, 2, 1, b % 5,
         -- last written when its step ended, as a history's rows were (the current step's: now)
         LEAST(now(), to_timestamp(floor(extract(epoch FROM now()) / $2) * $2 - b * $2 + $2))
       FROM generate_series(0, $3::int - 1) b, generate_series(0, ${ENDPOINTS - 1}) e`,
      [endpointId, stepS, buckets],
    );
  }
  log(`seeded the rollups in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  started = performance.now();
  await sql.query(
    `INSERT INTO pod_lifecycle.pods (id, owner_id, name, image, env, ports, port_mappings, container_disk_gb,
       gpu_type_id, gpu_count, status, desired_status, generation, disk_epoch, last_status_change, created_at,
       compute_per_hr, container_disk_per_gb_hr, endpoint_id)
     SELECT 'hist-pod-' || g, ${owner('g')}, 'history ' || g, 'runpod/base:1', '{}', '[]', '[]', 20,
       'AMPERE_16', 1, 'TERMINATED', 'TERMINATED', 1, 1, t + interval '2 hours', t, 0.2, 0.00014,
       CASE WHEN g % 3 = 0 THEN ${ep('g')} END
     FROM generate_series(1, $3::int) g, LATERAL (SELECT now() - (g % 720) * interval '1 hour' AS t) x`,
    [endpointId, userId, pods],
  );
  await sql.query(
    `INSERT INTO pod_lifecycle.pod_usage (pod_id, kind, started_at, ended_at, owner_id, endpoint_id, gpu_type_id,
       units, rate_per_hr)
     SELECT id, k.kind, created_at, last_status_change, owner_id, endpoint_id, gpu_type_id, k.units, k.rate
     FROM pod_lifecycle.pods, (VALUES ('compute', 1, 0.2), ('disk', 20, 0.0028)) k(kind, units, rate)
     WHERE id LIKE 'hist-pod-%'`,
  );
  log(`seeded ${pods.toLocaleString('en')} pods in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  // A history of a million jobs has long been vacuumed in a real deployment: without it the first reads set the
  // hint bits of every freshly inserted row they touch (writes, on a read route), and the first rounds measured that.
  started = performance.now();
  await sql.query(
    'VACUUM (ANALYZE) queue_broker.jobs, queue_broker.endpoint_metric_rollups, pod_lifecycle.pods, pod_lifecycle.pod_usage',
  );
  log(`vacuumed and analyzed the history in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** CPU seconds (user + system) the five apps have used, from their own /metrics. */
async function systemCpuSeconds(system) {
  const values = await Promise.all(APP_NAMES.map((app) => cpuSeconds(system.metricsUrl(app))));
  return values.reduce((sum, v) => sum + v, 0);
}

/**
 * `count` GETs one after another on a kept-alive connection: p50 and p99 (ms), and, for the system's routes, the
 * CPU the five apps used per request (ms): a cost that CPU contention on a shared machine does not inflate.
 */
async function sequential(url, headers, count, system) {
  const samples = [];
  const cpuBefore = system ? await systemCpuSeconds(system) : NaN;
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`GET ${url}: HTTP ${response.status}`);
  }
  const cpuMs = system ? (((await systemCpuSeconds(system)) - cpuBefore) * 1000) / count : NaN;
  return { ...latencySummary(samples), ...(system ? { cpuMs } : {}) };
}

const side = (label, pick, { ours = true } = {}) => ({
  label,
  run: (state, { warmup }) =>
    sequential(pick(state), state.headers, warmup ? 20 : state.requests, ours ? state.system : null),
});

export default {
  id: 'history',
  title: 'read routes over 1M jobs and 10k pods of history',
  async setup(ctx) {
    const jobs = ctx.quick ? 100_000 : 1_000_000;
    const pods = ctx.quick ? 1_000 : 10_000;
    // A user of its own: the bench user also owns what the earlier scenarios made (the placement scenario's
    // 1,300 pods, say), and the scenario is about a history of known size.
    const { userId, key } = await createUser(ctx, 'bench-history');
    const own = { ...ctx, userId, key, api: client(ctx.system.url('gateway'), key) };
    const endpoint = await benchEndpoint(own, 'bench-history');
    await seed(ctx.sql, { jobs, pods, endpointId: endpoint.id, userId });
    // The scenarios before this one leave the broker folding their jobs into rollups and the relays draining; a
    // read measured meanwhile would measure their backlog.
    const { seconds: quietAfterS, quiet } = await quiesce(ctx.system);
    log(`the apps were ${quiet ? 'idle' : 'still busy'} after ${quietAfterS.toFixed(1)} s`);
    const gateway = ctx.system.url('gateway');
    return {
      system: ctx.system,
      settings: { jobs, pods, requestsPerRound: ctx.quick ? 100 : 200, limitMs: LIMIT_MS, quietAfterS },
      requests: ctx.quick ? 100 : 200,
      headers: { authorization: `Bearer ${key}` },
      urls: {
        metrics7d: `${gateway}/v2/serverless/${endpoint.id}/metrics?window=7d`,
        metrics1h: `${gateway}/v2/serverless/${endpoint.id}/metrics?window=1h`,
        billing: `${gateway}/v2/billing`,
        nest: `${await bareNest()}/v2/${endpoint.id}/status/fixed`,
      },
    };
  },
  sides: {
    'metrics 7d': side(
      'GET /v2/serverless/{id}/metrics?window=7d (168 hourly rollups)',
      (s) => s.urls.metrics7d,
    ),
    'metrics 1h': side(
      'GET /v2/serverless/{id}/metrics?window=1h (60 minute rollups)',
      (s) => s.urls.metrics1h,
    ),
    billing: side(
      'GET /v2/billing (30 days, day buckets: pods, clusters, serverless, volumes)',
      (s) => s.urls.billing,
    ),
    'bare nest': side('bare Nest 12 app, Fastify adapter, a fixed body (no modules)', (s) => s.urls.nest, {
      ours: false,
    }),
  },
  comparisons: ['metrics 7d', 'metrics 1h', 'billing'].map((name) => ({
    label: `${name} p99 vs bare Nest`,
    unit: 'ms',
    better: 'lower',
    ours: [name, 'p99'],
    baseline: ['bare nest', 'p99'],
  })),
  notes: (state, raw) => [
    `history: ${state.settings.jobs.toLocaleString('en')} finished jobs and ${state.settings.pods.toLocaleString('en')} terminated pods with their usage, over ${ENDPOINTS} users and endpoints (the bench user's share: 1 %), seeded with SQL`,
    `${state.requests} sequential requests per round and side (one connection), p50/p99 per round; CPU per request includes the apps' background work during the round (loops, relays)`,
    `measured once the five apps were idle (bench/lib/quiesce.mjs; waited ${state.settings.quietAfterS.toFixed(1)} s after seeding for the earlier scenarios' backlog)`,
    `machine load average at the end: ${loadavg()
      .map((n) => n.toFixed(1))
      .join(', ')} on ${cpus().length} CPUs: p99 on a shared machine is mostly waiting for a CPU`,
    ...['metrics 7d', 'metrics 1h', 'billing'].map((name) => {
      const worst = Math.max(...(raw[name]?.p99 ?? [NaN]));
      const cpu = median(raw[name]?.cpuMs ?? []);
      return (
        `${name}: worst p99 over the rounds ${worst.toFixed(2)} ms, ${worst < LIMIT_MS ? 'under' : 'NOT under'} ` +
        `${LIMIT_MS} ms; the five apps' CPU per request ${cpu.toFixed(2)} ms (median of the rounds)`
      );
    }),
  ],
};
