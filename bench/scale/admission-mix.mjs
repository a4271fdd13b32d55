// The admission measure's workload, pure and seeded (bench/scale/admission.mjs sends it): per team a list of
// requests, single pods and small clusters of the cohort's GPU type at three priorities, each with a lifetime
// counted in its team's later requests; and the quotas that make them tight.

import { prng } from '../../scripts/lib/prng.mjs';

const weighted = (random, pairs) => {
  let r = random() * pairs.reduce((sum, [, w]) => sum + w, 0);
  for (const [value, w] of pairs) {
    r -= w;
    if (r < 0) return value;
  }
  return pairs[pairs.length - 1][0];
};

const POD_GPUS = [
  [1, 40],
  [2, 25],
  [4, 20],
  [8, 15],
];
const PRIORITIES = [
  ['low', 30],
  ['normal', 50],
  ['high', 20],
];

/**
 * The requests of team `team` (0…teams-1), `count` of them: three in four a single pod (1–8 GPUs, one in seven
 * interruptible), one in four a cluster of 2–8 pods of 1 or 2 GPUs; `life`: how many of the team's later requests
 * it lives for (3–12), then it is terminated.
 */
export function teamRequests(team, count, seed = 56) {
  const random = prng(seed * 1000 + team);
  return Array.from({ length: count }, () => {
    const priority = weighted(random, PRIORITIES);
    const life = 3 + Math.floor(random() * 10);
    if (random() < 0.75) {
      const gpus = weighted(random, POD_GPUS);
      return { kind: 'pod', gpus, pods: 1, priority, interruptible: random() < 1 / 7, life };
    }
    const pods = 2 + Math.floor(random() * 7);
    return { kind: 'cluster', gpus: random() < 0.6 ? 1 : 2, pods, priority, interruptible: false, life };
  });
}

/** The GPUs a team would hold on average if every request were admitted (Little's law in request units). */
export function meanDemand(requests) {
  const held = requests.reduce((sum, r) => sum + r.gpus * r.pods * r.life, 0);
  return held / requests.length;
}

/**
 * Tight quotas: each cohort one GPU type (the `cohorts` types with the most free GPUs, reused in turn if fewer),
 * each team a share of half its mean demand, capped so that the shares of the type add up to at most 80 % of its
 * free GPUs (at least 1 GPU a team); every other team may borrow as much as the cohort leaves idle, the others up
 * to their share again. So teams borrow, are refused above share plus borrowing, and reclaim from borrowers.
 */
export function tightQuotas({ free, teams, cohorts, demand }) {
  const types = [...free].sort((a, b) => b.free - a.free || a.gpuTypeId.localeCompare(b.gpuTypeId));
  if (!types.length) throw new Error('the fleet has no free GPU to give quotas of');
  const typeOf = Array.from({ length: cohorts }, (_, c) => types[c % types.length]);
  const teamsOn = new Map();
  for (const t of typeOf) teamsOn.set(t.gpuTypeId, (teamsOn.get(t.gpuTypeId) ?? 0) + teams / cohorts);
  return Array.from({ length: teams }, (_, team) => {
    const cohort = team % cohorts;
    const { gpuTypeId, free: typeFree } = typeOf[cohort];
    const cap = Math.floor((0.8 * typeFree) / teamsOn.get(gpuTypeId));
    const gpus = Math.max(1, Math.min(cap, Math.floor(demand[team] / 2)));
    return { team, cohort, gpuTypeId, gpus, borrowingLimit: team % 2 ? gpus : null };
  });
}
