// Admission in Kueue's shape (issue 56): `size.admissions` pod and cluster requests from 50 teams in 5 cohorts
// against tight GPU quotas (docs/adr/0037-quotas-and-preemption.md), each team its own client loop with its own
// team key through the gateway, no think time.
//   ours      quotas on: each team a quota of its cohort's GPU type (admission-mix.mjs, tightQuotas), set with
//             PUT /v2/teams/{id}/quota by the operator; requests above share plus borrowing are refused (409
//             QUOTA_EXCEEDED), borrowers are preempted when a lender reclaims, lower priorities and interruptible
//             pods when the hosts are full;
//   baseline  quotas off: the same requests with no quota row (DELETE /v2/teams/{id}/quota): only the hosts bound
//             them (refusals are CAPACITY_UNAVAILABLE; priorities and interruptible pods still preempt).
// A decision is the create's answer: 201, or a 409 refusal. Anything else (a 5xx, a 429 from the rate limiter, a
// 4xx of a malformed request) fails the measure. Admitted workloads are terminated (DELETE, in the team's loop)
// once their team has sent `life` more requests, so capacity turns over and the total stays bounded; after a side
// every workload left is terminated and the teams' reservations are awaited to be gone (untimed).
// Cohort names change every round and side, so the preemption pace limit (20 per cohort per minute) of one does
// not carry over into the next.
import { percentile } from '../lib/stats.mjs';
import { meanDemand, teamRequests, tightQuotas } from './admission-mix.mjs';

const S = 'cluster_scheduler';
const IMAGE = 'runpod/base:0.6.2';
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seeded = new Map();

/** Rounds: one round of 15,000 requests a side is 2 × 15,000 decisions; fewer rounds at the larger sizes. */
function roundsOf(env) {
  if (env.quick) return 1;
  return { S: env.rounds, M: Math.min(env.rounds, 2), L: 1 }[env.size.name] ?? 1;
}

async function freeByType(sql) {
  const { rows } = await sql.query(
    `SELECT gpu_type_id, sum(free_gpus)::int AS free FROM ${S}.hosts
      WHERE scheduling_state = 'READY' AND healthy AND gpu_type_id IS NOT NULL GROUP BY 1`,
  );
  return rows.map((r) => ({ gpuTypeId: r.gpu_type_id, free: r.free }));
}

async function send(gateway, key, method, path, body) {
  const started = performance.now();
  const response = await fetch(`${gateway}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, ms: performance.now() - started, text };
}

function createOf(request, gpuTypeId, name) {
  const common = { name, priority: request.priority };
  if (request.kind === 'pod') {
    return {
      path: '/v2/pods',
      body: {
        ...common,
        image: IMAGE,
        gpu: { id: gpuTypeId, count: request.gpus },
        disk: 10,
        interruptible: request.interruptible,
      },
    };
  }
  return {
    path: '/v2/clusters',
    body: {
      ...common,
      type: 'TRAINING',
      image: IMAGE,
      compute: { gpuTypeId, gpuCountPerPod: request.gpus, podCount: request.pods },
    },
  };
}

/**
 * One team's loop: its requests in order, each workload terminated `life` requests after its admission. The
 * terminations are awaited in the loop, as one client would: with them sent and not awaited, pod-lifecycle's one
 * pod lane held up to 50 creates plus every pending termination, and at L a create waited past the gateway's 15 s
 * command wait (a 503). What is left at the end is terminated after the side is timed.
 */
async function teamLoop(state, team, tag, tally) {
  const { gateway } = state;
  const live = [];
  const terminate = async (w) => {
    const path = w.kind === 'pod' ? `/v2/pods/${w.id}` : `/v2/clusters/${w.id}`;
    const answer = await send(gateway, team.key, 'DELETE', path);
    if (answer.status !== 204 && answer.status !== 200) {
      tally.failures.push(`DELETE ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
    }
  };
  for (const [i, request] of team.requests.entries()) {
    const { path, body } = createOf(request, team.quota.gpuTypeId, `adm-${tag}-${team.index}-${i}`);
    const answer = await send(gateway, team.key, 'POST', path, body);
    tally.samples.push(answer.ms);
    if (answer.status === 201) {
      tally.admitted++;
      live.push({ id: JSON.parse(answer.text).id, kind: request.kind, until: i + request.life });
    } else if (answer.status === 409) {
      // The problem body has no code: QUOTA_EXCEEDED's detail names the quota (quota-admission.ts).
      const { detail } = JSON.parse(answer.text);
      if (/pace limit/.test(detail)) tally.paced++;
      const kind = / would exceed .*GPU quota/.test(detail) ? 'quota' : 'capacity';
      tally[kind]++;
      if (tally.examples[kind].length < 2) tally.examples[kind].push(detail);
    } else {
      tally.failures.push(`POST ${path}: ${answer.status} ${answer.text.slice(0, 300)}`);
    }
    for (let k = live.length - 1; k >= 0; k--) {
      if (live[k].until <= i) await terminate(live.splice(k, 1)[0]);
    }
  }
  return live.map((w) => () => terminate(w));
}

async function setQuotas(state, on, tag) {
  await Promise.all(
    state.teams.map(({ id, quota }) =>
      on
        ? state.operatorApi.request('PUT', `/v2/teams/${id}/quota`, {
            cohort: `adm-${tag}-c${quota.cohort}`,
            limits: [{ gpuTypeId: quota.gpuTypeId, gpus: quota.gpus, borrowingLimit: quota.borrowingLimit }],
          })
        : state.operatorApi.delete(`/v2/teams/${id}/quota`),
    ),
  );
}

/** Waits until the scheduler has released every GPU the teams held (terminations are applied asynchronously). */
async function released(state) {
  const deadline = performance.now() + 300_000;
  for (;;) {
    const { rows } = await state.sql.query(
      `SELECT count(*)::int AS n FROM ${S}.reservations WHERE owner_id = ANY($1::text[])`,
      [state.teams.map((t) => t.id)],
    );
    if (rows[0].n === 0) return;
    if (performance.now() > deadline) {
      throw new Error(`${rows[0].n} reservations of the teams left after 300 s`);
    }
    await sleep(200);
  }
}

async function side(state, on, round) {
  const tag = `r${round}${on ? 'q' : 'n'}`;
  await setQuotas(state, on, tag);
  const tally = { samples: [], failures: [], admitted: 0, quota: 0, capacity: 0, paced: 0 };
  tally.examples = { quota: [], capacity: [] };
  const since = new Date();
  const started = performance.now();
  const left = await Promise.all(state.teams.map((team) => teamLoop(state, team, tag, tally)));
  const totalS = (performance.now() - started) / 1000;
  for (const terminations of left) await Promise.all(terminations.map((terminate) => terminate()));
  if (tally.failures.length) {
    throw new Error(
      `${tally.failures.length} requests undecided, e.g. ${tally.failures.slice(0, 3).join(' | ')}`,
    );
  }
  const { rows } = await state.sql.query(
    `SELECT reason, count(*)::int AS n FROM ${S}.preemptions
      WHERE at >= $1 AND preemptor_account_id = ANY($2::text[]) GROUP BY 1 ORDER BY 1`,
    [since, state.teams.map((t) => t.id)],
  );
  await released(state);
  const preemptions = Object.fromEntries(rows.map((r) => [r.reason, r.n]));
  const { samples, admitted, quota, capacity, paced } = tally;
  state.log(
    `admission ${on ? 'quotas on ' : 'quotas off'} round ${round}: ${samples.length} decisions in ` +
      `${totalS.toFixed(1)} s, p99 ${percentile(samples, 99).toFixed(0)} ms; admitted ${admitted}, refused by ` +
      `quota ${quota}, by capacity ${capacity} (paced ${paced}); preemptions ${JSON.stringify(preemptions)}; e.g. ${JSON.stringify(tally.examples)}`,
  );
  return { totalS, p99: percentile(samples, 99), admitted, quota, capacity, paced, preemptions };
}

const sum = (sides, pick) => sides.reduce((n, s) => n + pick(s), 0);
const preempted = (sides) => {
  const byReason = {};
  for (const s of sides) {
    for (const [r, n] of Object.entries(s.preemptions)) byReason[r] = (byReason[r] ?? 0) + n;
  }
  const total = Object.values(byReason).reduce((a, b) => a + b, 0);
  return `${total} (${
    Object.entries(byReason)
      .map(([r, n]) => `${r} ${n}`)
      .join(', ') || 'none'
  })`;
};
const countsNote = (label, sides) =>
  `${label}, over ${sides.length} round(s): admitted ${sum(sides, (s) => s.admitted)}, refused by quota ` +
  `${sum(sides, (s) => s.quota)}, refused by capacity ${sum(sides, (s) => s.capacity)} (of the refusals, ` +
  `${sum(sides, (s) => s.paced)} at the preemption pace limit), preemptions ${preempted(sides)}`;

export default {
  id: 'admission',
  title: "admission in Kueue's shape: 50 teams, 5 cohorts, tight quotas",
  async seed(env) {
    const teams = [];
    const perTeam = Math.ceil(env.size.admissions / env.size.teams);
    for (let index = 0; index < env.size.teams; index++) {
      const team = await env.api.post('/v2/teams', { name: `adm-team-${index}` });
      const { key } = await env.api.post('/v2/account/api-keys', {
        name: 'admission',
        scope: 'full',
        teamId: team.id,
      });
      teams.push({ index, id: team.id, key, requests: teamRequests(index, perTeam) });
    }
    seeded.set(env.databaseUrl, teams);
    env.log(`admission: ${teams.length} teams with a key each, ${perTeam} requests a team`);
  },
  async run(env) {
    const teams = seeded.get(env.databaseUrl);
    const free = await freeByType(env.sql);
    const quotas = tightQuotas({
      free,
      teams: teams.length,
      cohorts: env.size.cohorts,
      demand: teams.map((t) => meanDemand(t.requests)),
    });
    teams.forEach((t) => (t.quota = quotas[t.index]));
    const state = {
      teams,
      gateway: env.system.url('gateway'),
      operatorApi: env.operatorApi,
      sql: env.sql,
      log: env.log,
    };
    const ours = [];
    const baseline = [];
    for (let round = 1; round <= roundsOf(env); round++) {
      ours.push(await side(state, true, round));
      baseline.push(await side(state, false, round));
    }
    const requests = sum(teams, (t) => t.requests.length);
    const types = [...new Set(quotas.map((q) => q.gpuTypeId))];
    const notes = [
      `${requests} requests a side and round from ${teams.length} teams (${env.size.cohorts} cohorts of ` +
        `${teams.length / env.size.cohorts}), each team its own loop with a team key, no think time; ` +
        `${ours.length} round(s) interleaved (quotas on, then off; one at L and in --quick, two at M: a round is ` +
        `2 × ${requests} decisions)`,
      `mix: 3/4 single pods (1–8 GPUs, 1/7 interruptible), 1/4 clusters of 2–8 pods × 1–2 GPUs; low/normal/high ` +
        `30/50/20 %; each terminated (DELETE, timed in the loop) after 3–12 more requests of its team`,
      `quotas: cohort c → ${types.join(', ')}; shares ${Math.min(...quotas.map((q) => q.gpus))}–` +
        `${Math.max(...quotas.map((q) => q.gpus))} GPUs a team (half its mean demand, the type's shares ≤ 80 % of ` +
        `its free GPUs); odd teams may borrow their share again, even ones without a limit`,
      countsNote('quotas on', ours),
      countsNote('quotas off', baseline),
    ];
    const common = {
      oursLabel: 'quotas on: 50 teams in 5 cohorts with tight quotas, borrowing and preemption',
      baselineLabel: 'the same requests with no quota at all (hosts only)',
      notes,
    };
    const figure = (id, label, unit, key) => ({
      id,
      label,
      unit,
      better: 'lower',
      ours: ours.map((s) => s[key]),
      baseline: baseline.map((s) => s[key]),
      ...common,
    });
    return [
      figure(
        'admission.total-s',
        'admissions (pods and clusters) of 50 teams in 5 cohorts, all decided (201 or 409), total',
        's',
        'totalS',
      ),
      figure('admission.decision-p99', 'one admission request → its decision (201 or 409), p99', 'ms', 'p99'),
    ];
  },
};
