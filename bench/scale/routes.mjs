// Routes over a large account (issue 56): a team of the bench user's holds `size.pods` pods of history (90 days:
// mostly terminated, some running or stopped, cluster members, serverless workers; bench/scale/routes-seed.mjs)
// with their usage intervals, and `size.auditEntries` audit entries (half of them the team's), seeded with SQL.
// Each round sends, route after route, `requests` sequential GETs on a kept-alive connection with the team's key
// (200 a round, 30 under --quick; fewer for a slow route, below), each route's batch followed by a batch of the
// baseline's, and takes p50/p99:
//   ours      GET /v2/pods (RunPod's v2 list: every live standalone pod of the account, unpaginated, as its
//             contract has it) and ?includeClusterPods=true (the console's), GET /v2/clusters, GET /v2/billing/pods
//             for the last 24 h in hours (the console's usage page), GET /v2/billing (30 days in days), GET /v2/audit
//             (the newest page of 50) and a filtered page (one pod's terminations), and GET /v2/fleet/capacity
//             with the operator's key over the size's fleet;
//   baseline  GET /v2/account/api-keys, a bare authenticated route of the same gateway with the same key (the
//             key check, rate limiter and one small indexed read), so the ratio is what the route itself adds.
import { sequentialGets } from '../lib/http-latency.mjs';
import { quiesce } from '../lib/quiesce.mjs';
import { seedHistory } from './routes-seed.mjs';

/** How long seeding took, per size's database (a note). */
const seeded = new Map();
/** The pod whose audit entries the filtered page reads (a pod of the seeded history: some 70 entries at L). */
const AUDIT_POD = 'scale-pod-3';
/**
 * A route this slow at its first answer is sent fewer requests a batch: about `batchMs` of them, `min` to `max`.
 * The full run keeps 200 for the lists and the audit (their p99 is a target); the usage route at L
 * (`/v2/billing/pods`, ~2 s an answer) would take most of an hour at 200 a round.
 */
const SLOW = {
  quick: { overMs: 50, batchMs: 1000, min: 3, max: 20 },
  full: { overMs: 500, batchMs: 20_000, min: 20, max: 200 },
};
const teamName = (env) => `scale-routes-${env.size.name.toLowerCase()}`;

const ROUTES = [
  {
    id: 'pods-list',
    label: 'GET /v2/pods (every live standalone pod, unpaginated as the contract has it)',
    path: () => '/v2/pods',
  },
  {
    id: 'pods-list-clusters',
    label: 'GET /v2/pods?includeClusterPods=true (the console: cluster members too)',
    path: () => '/v2/pods?includeClusterPods=true',
  },
  { id: 'clusters-list', label: 'GET /v2/clusters (the live clusters)', path: () => '/v2/clusters' },
  {
    id: 'usage',
    label: "GET /v2/billing/pods, last 24 h by hour (the console's usage page)",
    path: () => {
      const end = new Date(Math.ceil(Date.now() / 3_600_000) * 3_600_000);
      const start = new Date(end.getTime() - 86_400_000);
      return `/v2/billing/pods?startTime=${start.toISOString()}&endTime=${end.toISOString()}&bucketSize=hour`;
    },
  },
  { id: 'billing', label: 'GET /v2/billing (the default: 30 days by day)', path: () => '/v2/billing' },
  { id: 'audit', label: 'GET /v2/audit?limit=50 (the newest page)', path: () => '/v2/audit?limit=50' },
  {
    id: 'audit-filtered',
    label: "GET /v2/audit?resourceId=…&limit=50 (one pod's history)",
    path: (s) => `/v2/audit?resourceId=${s.auditPod}&limit=50`,
  },
  {
    id: 'fleet-capacity',
    label: "GET /v2/fleet/capacity (the operator's key, every host summed)",
    path: () => '/v2/fleet/capacity',
    operator: true,
  },
];

export default {
  id: 'routes',
  title: 'routes over a large account: lists, usage, billing, audit, fleet capacity',

  async seed(env) {
    const started = performance.now();
    const team = await env.api.post('/v2/teams', { name: teamName(env) });
    const history = await seedHistory(env.sql, env.log, {
      accountId: team.id,
      memberIds: [env.user.userId, `${env.user.userId}-colleague`],
      pods: env.size.pods,
      auditEntries: env.size.auditEntries,
    });
    seeded.set(env.databaseUrl, { ...history, seconds: (performance.now() - started) / 1000 });
  },

  async run(env) {
    // The team and what it holds are read back from the database (run() needs nothing kept from seed()).
    const { rows: teams } = await env.sql.query('SELECT id FROM gateway.teams WHERE name = $1', [
      teamName(env),
    ]);
    if (!teams.length) throw new Error('routes: run() before seed()');
    const teamId = teams[0].id;
    const { key } = await env.api.post('/v2/account/api-keys', {
      name: 'scale-routes',
      scope: 'full',
      teamId,
    });
    const { rows: counts } = await env.sql.query(
      `SELECT count(*) FILTER (WHERE status <> 'TERMINATED' AND cluster_id IS NULL)::int AS listed,
              count(*) FILTER (WHERE status <> 'TERMINATED')::int AS listed_all,
              (SELECT count(*) FROM cluster_scheduler.clusters WHERE owner_id = $1)::int AS clusters,
              (SELECT count(*) FROM cluster_scheduler.clusters WHERE owner_id = $1 AND deleted_at IS NULL)::int
                AS live_clusters
         FROM pod_lifecycle.pods WHERE owner_id = $1`,
      [teamId],
    );
    const state = { ...counts[0], key, auditPod: AUDIT_POD, seed: seeded.get(env.databaseUrl) };
    const gateway = env.system.url('gateway');
    const requests = env.quick ? 30 : 200;
    const headers = { authorization: `Bearer ${state.key}` };
    const operatorHeaders = { authorization: `Bearer ${env.operator.key}` };
    // Each route answers once before the rounds (the first read of a cold table). One that fails at this size is
    // left out of the rounds and said so in the notes: a figure over errors would flatter it.
    const sample = {};
    const firstMs = {};
    const failed = [];
    for (const route of ROUTES) {
      const started = performance.now();
      const response = await fetch(`${gateway}${route.path(state)}`, {
        headers: route.operator ? operatorHeaders : headers,
      });
      const body = await response.text();
      firstMs[route.id] = performance.now() - started;
      sample[route.id] = Buffer.byteLength(body);
      if (response.status !== 200) failed.push({ route, status: response.status, body: body.slice(0, 160) });
      else if (route.id === 'pods-list' && JSON.parse(body).pods.length !== state.listed) {
        throw new Error(`GET /v2/pods listed ${JSON.parse(body).pods.length} pods, ${state.listed} seeded`);
      }
    }
    const measured = ROUTES.filter((route) => !failed.some((f) => f.route === route));
    const { seconds: quietAfterS } = await quiesce(env.system, { timeoutMs: 30_000 });
    const bare = `${gateway}/v2/account/api-keys`;
    // A route whose first answer took over slow.overMs (under --quick a whole list of a thousand pods; the usage
    // route at L) sends about slow.batchMs of GETs a batch, its p99 then the slowest of a few (said in the notes).
    const slow = env.quick ? SLOW.quick : SLOW.full;
    const countOf = (route) =>
      firstMs[route.id] > slow.overMs
        ? Math.max(slow.min, Math.min(slow.max, Math.round(slow.batchMs / firstMs[route.id])))
        : requests;
    const results = Object.fromEntries(measured.map((r) => [r.id, { ours: [], baseline: [] }]));
    for (let round = 0; round < env.rounds; round++) {
      for (const route of measured) {
        const routeHeaders = route.operator ? operatorHeaders : headers;
        results[route.id].ours.push(
          await sequentialGets(`${gateway}${route.path(state)}`, routeHeaders, countOf(route)),
        );
        results[route.id].baseline.push(await sequentialGets(bare, headers, countOf(route)));
      }
      env.log(`routes: round ${round + 1} of ${env.rounds} done`);
    }
    const kb = (id) => `${(sample[id] / 1024).toFixed(1)} KB`;
    const notes = [
      `the account: a team of the bench user's with ${env.size.pods.toLocaleString('en')} pods over 90 days (${state.listed.toLocaleString('en')} live standalone, ${(state.listed_all - state.listed).toLocaleString('en')} live cluster members, ${state.clusters.toLocaleString('en')} clusters of which ${state.live_clusters} live), 2 usage intervals a pod, ${env.size.auditEntries.toLocaleString('en')} audit entries (half the team's); seeded with SQL${state.seed ? ` in ${state.seed.seconds.toFixed(0)} s` : ''}`,
      `${requests} sequential GETs per route and round (one kept-alive connection), each route's batch followed by one of the baseline; measured once the apps were idle (waited ${quietAfterS.toFixed(1)} s)`,
      ...(measured.some((r) => countOf(r) !== requests)
        ? [
            `${slow.min} to ${slow.max} GETs a batch (about ${slow.batchMs / 1000} s of them) for the routes whose first answer took over ${slow.overMs} ms: ${measured
              .filter((r) => countOf(r) !== requests)
              .map((r) => `${r.id} (${firstMs[r.id].toFixed(0)} ms: ${countOf(r)})`)
              .join(', ')}`,
          ]
        : []),
      `answer sizes: ${measured.map((r) => `${r.id} ${kb(r.id)}`).join(', ')}`,
      ...failed.map(
        (f) =>
          `NOT MEASURED: ${f.route.id} (${f.route.label}) answered HTTP ${f.status} at this size: ${f.body}`,
      ),
      'GET /v2/pods has no pagination in RunPod\'s v2 contract (shared/spec/management-api.md: `{"pods": [...]}`): its cost grows with the live pods listed',
    ];
    return measured.flatMap((route) =>
      ['p99', 'p50'].map((metric) => ({
        id: `routes.${route.id}-${metric}`,
        label: `${route.label} ${metric}`,
        unit: 'ms',
        better: 'lower',
        ours: results[route.id].ours.map((r) => r[metric]),
        baseline: results[route.id].baseline.map((r) => r[metric]),
        oursLabel: route.label,
        baselineLabel: `GET /v2/account/api-keys (a bare authenticated route, the same gateway${route.operator ? ', the team key' : ' and key'})`,
        notes,
      })),
    );
  },
};
