// Placement at fleet size (kube-scheduler's scheduler_perf measure: pods placed per second, and their latency), on
// a fleet 70 % full of 50 teams' reservations with quotas on (bench/scale/placement-seed.mjs). Per round, ours then
// its baseline:
//   placements   `placement.cmd.reserve` of N one-GPU pods recorded on the bus as pod-lifecycle records them (the
//                envelope, the outcome inbox: bench/lib/command-issuer.mjs), C in flight, owners the 50 teams in
//                turn, GPU types in proportion to what is free of each, any data center: the scheduler's
//                placements per second and each command's publish → outcome time. Baseline: the raw SQL
//                reservation of each pod (bench/lib/raw-reservation.mjs) in one transaction, C connections at once,
//                a lost race tried again. Then undone, untimed: ours by recorded `placement.cmd.release`s, the raw
//                rows by SQL, so the fleet stays 70 % full.
//   api creates  POST /v2/pods → 201 (1 GPU) from C concurrent clients, the whole path (gateway, pod-lifecycle,
//                the reserve, the pod's rows); read against the same round's raw SQL rate. Then terminated, untimed,
//                until the scheduler has released their GPUs.
//   cluster 64   POST /v2/clusters of 64 one-GPU pods → 201 in the type and data center with the most free GPUs,
//                against the raw SQL reservation of the same 64 pods there; each cluster deleted (untimed) until
//                its reservations are gone.
import { percentile } from '../lib/stats.mjs';
import { quiesce } from '../lib/quiesce.mjs';
import { commandIssuer } from '../lib/command-issuer.mjs';
import {
  CLUSTER_PODS,
  CONCURRENCY,
  apiCreates,
  bestGroup,
  busPlacements,
  clusterCreates,
  counts,
  freeByType,
  rawClusters,
  rawPlacements,
  typeSequence,
} from './placement-drive.mjs';
import { seedPlacement, teams } from './placement-seed.mjs';

const p = (xs, q) => (xs.length ? percentile(xs, q) : NaN);

export default {
  id: 'placement',
  title: 'placement at fleet size: 70 % full, 50 teams in 5 cohorts, quotas on',
  async seed(env) {
    const seeded = await seedPlacement(env);
    env.log(
      `placement seed: ${seeded.reservations} reservations hold ${seeded.used} of ${seeded.gpus} GPUs ` +
        `(${(seeded.share * 100).toFixed(1)} %), 50 team quotas in 5 cohorts`,
    );
  },
  async run(env) {
    const { default: pg } = await import('pg');
    const free = await freeByType(env.sql);
    const n = counts(
      env,
      free.reduce((a, r) => a + r.free, 0),
    );
    const pool = new pg.Pool({ connectionString: env.databaseUrl, max: CONCURRENCY + 1 });
    const state = {
      env,
      n,
      pool,
      teams: teams(env.user.userId),
      types: typeSequence(free, Math.max(n.reserves, n.creates)),
      issuer: commandIssuer(env.nc, env.natsPrefix),
    };
    const clustersFit = (await bestGroup(env.sql)).free >= CLUSTER_PODS * 2;
    const r = { rate: [[], []], api: [[], []], p50: [[], []], p99: [[], []], c50: [[], []], c99: [[], []] };
    let retries = 0;
    try {
      // One warm-up of each side, unrecorded (prepared statements, JIT, the pools).
      await busPlacements(state, 'w');
      await rawPlacements(state, 'w');
      for (let round = 0; round < env.rounds; round++) {
        const ours = await busPlacements(state, round);
        await quiesce(env.system, { timeoutMs: 20_000 });
        const raw = await rawPlacements(state, round);
        retries += raw.retries;
        r.rate[0].push(ours.rate);
        r.rate[1].push(raw.rate);
        r.p50[0].push(p(ours.latencies, 50));
        r.p50[1].push(p(raw.latencies, 50));
        r.p99[0].push(p(ours.latencies, 99));
        r.p99[1].push(p(raw.latencies, 99));
        r.api[0].push(await apiCreates(state, round));
        r.api[1].push(raw.rate);
        await quiesce(env.system, { timeoutMs: 20_000 });
        if (clustersFit) {
          const c = await clusterCreates(state, round);
          const s = await rawClusters(state, round);
          r.c50[0].push(p(c, 50));
          r.c99[0].push(p(c, 99));
          r.c50[1].push(p(s, 50));
          r.c99[1].push(p(s, 99));
        }
        env.log(
          `placement round ${round + 1}: ${ours.rate.toFixed(0)}/s vs raw ${raw.rate.toFixed(0)}/s, ` +
            `p99 ${r.p99[0].at(-1).toFixed(1)} vs ${r.p99[1].at(-1).toFixed(1)} ms, api ${r.api[0].at(-1).toFixed(0)}/s` +
            (clustersFit
              ? `, c64 p50 ${r.c50[0].at(-1).toFixed(1)} vs ${r.c50[1].at(-1).toFixed(1)} ms`
              : ''),
        );
      }
    } finally {
      state.issuer.close();
      await pool.end();
    }
    const raw =
      'raw SQL reservation, one transaction per pod (snapshot, best fit, lock, guarded UPDATE, INSERT reservation + port), same concurrency';
    const common = [
      `${n.reserves} one-GPU placements per round, ${CONCURRENCY} in flight, owners the 50 teams in turn, types in proportion to what is free, any data center`,
      `raw SQL lost races tried again: ${retries} over the rounds`,
    ];
    const figure = (id, label, unit, better, pair, oursLabel, baselineLabel, notes = common) => ({
      id: `placement.${id}`,
      label,
      unit,
      better,
      ours: pair[0],
      baseline: pair[1],
      oursLabel,
      baselineLabel,
      notes,
    });
    const bus = `placement.cmd.reserve recorded on the bus as pod-lifecycle records it → outcome (cluster-scheduler: ledger lock, quota ledger, snapshot, plan, commit)`;
    const c64 = clustersFit
      ? [
          `${n.clusters} creates of ${CLUSTER_PODS} pods per round in the type and data center with the most free GPUs; each deleted before the next`,
        ]
      : [`no data center has ${CLUSTER_PODS * 2} free GPUs of one type at this size: not measured`];
    return [
      figure(
        'placements-per-s',
        'single-pod placements per second at the scheduler, 70 % full, quotas on',
        'placements/s',
        'higher',
        r.rate,
        bus,
        raw,
      ),
      figure(
        'api-creates-per-s',
        'POST /v2/pods → 201 per second, 70 % full, quotas on',
        'creates/s',
        'higher',
        r.api,
        `POST /v2/pods (1 GPU) → 201, ${CONCURRENCY} concurrent clients, the whole path`,
        `${raw} (the round's placements figure)`,
        [`${n.creates} creates per round, terminated after the round`, ...common],
      ),
      figure('p50', 'single-pod placement p50, 70 % full, quotas on', 'ms', 'lower', r.p50, bus, raw),
      figure('p99', 'single-pod placement p99, 70 % full, quotas on', 'ms', 'lower', r.p99, bus, raw),
      figure(
        'cluster64-p50',
        '64-pod cluster create p50, 70 % full, quotas on',
        'ms',
        'lower',
        [r.c50[0], r.c50[1]],
        'POST /v2/clusters (64 × 1 GPU) → 201',
        'raw SQL reservation of the same 64 pods in the same place',
        c64,
      ),
      figure(
        'cluster64-p99',
        '64-pod cluster create p99, 70 % full, quotas on',
        'ms',
        'lower',
        [r.c99[0], r.c99[1]],
        'POST /v2/clusters (64 × 1 GPU) → 201',
        'raw SQL reservation of the same 64 pods in the same place',
        c64,
      ),
    ];
  },
};
