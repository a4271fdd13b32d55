// The fleet scenario's drain (bench/scenarios/fleet.mjs): a host of 64 GPUs registered through the fleet API in the
// smallest group of the fleet an endpoint can be pinned to (one GPU tier in one region), the group's other hosts
// cordoned so the endpoint's workers all land on it, then uncordoned and the big host drained under a steady job
// load. Pods, their hosts and the jobs are read from the run's database (pod_lifecycle.pods, queue_broker.jobs);
// every change goes through the API, as an operator's and a user's would.
import { readFileSync } from 'node:fs';
import { createTemplate, endpointAiKey, saveEndpoint } from './api.mjs';
import { pool, requestJson, sleep } from './jobs-load.mjs';

const TIMEOUT_MS = 300_000;
const CORDON_CONCURRENCY = 8;
/** Jobs a second of the steady load through the drain. */
export const LOAD_PER_SECOND = 20;
/**
 * How long each job of the load takes (the SDK's sleep worker): about LOAD_PER_SECOND × JOB_MS / 1000 jobs are in
 * flight at any time, so old workers hold some when they are stopped (an echo job lasts a millisecond: none would).
 */
export const JOB_MS = 500;

/**
 * The GPU tier and region whose hosts are the fewest (from the fleet file: its GPU types' tiers and data centers'
 * regions): the group of hosts an endpoint pinned to them can be placed on. Answers the tier, the region, the GPU
 * type and data center of its first host (the big host's) and the group's size in the file.
 */
export function smallestGroup(fleetFile) {
  const fleet = JSON.parse(readFileSync(fleetFile, 'utf8'));
  const tierOf = new Map(fleet.gpuTypes.map((type) => [type.id, type.tier]));
  const regionOf = new Map(fleet.dataCenters.map((dc) => [dc.id, dc.region]));
  const groups = new Map();
  for (const host of fleet.hosts) {
    if (!host.gpuTypeId) continue;
    const key = `${tierOf.get(host.gpuTypeId)} ${regionOf.get(host.dataCenterId)}`;
    const group = groups.get(key) ?? { first: host, hosts: 0, gpus: 0 };
    group.hosts++;
    group.gpus += host.gpuCount;
    groups.set(key, group);
  }
  const [key, group] = [...groups].sort((a, b) => a[1].hosts - b[1].hosts || (a[0] < b[0] ? -1 : 1))[0];
  const [tier, region] = key.split(' ');
  return {
    tier,
    region,
    gpuTypeId: group.first.gpuTypeId,
    dataCenterId: group.first.dataCenterId,
    hostsInFile: group.hosts,
    gpusInFile: group.gpus,
    gpuTypeIds: [...tierOf].filter(([, t]) => t === tier).map(([id]) => id),
    dataCenterIds: [...regionOf].filter(([, r]) => r === region).map(([id]) => id),
  };
}

/** The hosts of the group not GONE but the big host: what is cordoned while the workers start. */
export async function groupHosts(operator, group, except) {
  const ids = [];
  for (const gpuTypeId of group.gpuTypeIds) {
    for (const dataCenterId of group.dataCenterIds) {
      let after = null;
      do {
        const query = new URLSearchParams({ gpuTypeId, dataCenterId, limit: '1000' });
        if (after) query.set('after', after);
        const page = await operator.get(`/v2/fleet/hosts?${query}`);
        for (const host of page.hosts) if (host.state !== 'GONE' && host.id !== except) ids.push(host.id);
        after = page.next;
      } while (after);
    }
  }
  return ids;
}

/** Cordons (or uncordons) the hosts through the API, a few at a time. */
export async function setCordoned(operator, hostIds, cordoned) {
  await pool(hostIds.length, CORDON_CONCURRENCY, async (i) => {
    const path = `/v2/fleet/hosts/${hostIds[i]}/${cordoned ? 'cordon' : 'uncordon'}`;
    await operator.post(path, cordoned ? { reason: 'bench: the endpoint starts on the big host' } : {});
  });
}

/** Registers the big host (READY), or makes it READY again after a drain. */
export async function readyBigHost(operator, group, hostId, gpuCount) {
  const host = await operator.get(`/v2/fleet/hosts/${hostId}`, { expect: [200, 404] });
  if (host?.id && host.state !== 'GONE') {
    if (host.state !== 'READY') await operator.post(`/v2/fleet/hosts/${hostId}/uncordon`);
    return;
  }
  await operator.post('/v2/fleet/hosts', {
    id: hostId,
    dataCenterId: group.dataCenterId,
    gpuTypeId: group.gpuTypeId,
    gpuCount,
    publicIp: '192.0.2.254',
    portRange: [61000, 61999],
  });
}

/**
 * The endpoint of the drain: the SDK's sleep worker (gpucp/sleep-worker, started like the echo worker) pinned to
 * the group's tier and region, no worker until it is told.
 */
export async function drainEndpoint(ctx, group) {
  const { id: templateId } = await createTemplate(ctx.api, 'bench-fleet-sleep', 'gpucp/sleep-worker');
  const fields = {
    name: 'bench-fleet-drain',
    templateId,
    gpuIds: group.tier,
    locations: group.region,
    idleTimeout: 1,
    // The workers are workersMin's; a large delay keeps the load from asking for more.
    scalerValue: 3600,
  };
  const id = await saveEndpoint(ctx.api, { ...fields, workersMin: 0, workersMax: 0 });
  return {
    id,
    base: `${ctx.system.url('gateway')}/v2/${id}`,
    key: ctx.key,
    aiKey: await endpointAiKey(ctx.api, id),
    size: (workers) => saveEndpoint(ctx.api, { id, ...fields, workersMin: workers, workersMax: workers }),
  };
}

/** The endpoint's worker pods that are not TERMINATED: `{ running, runningOn(host), liveOn(host), live }`. */
export async function workerPods(sql, endpointId) {
  const { rows } = await sql.query(
    `SELECT host_id, status, count(*)::int AS n FROM pod_lifecycle.pods
      WHERE endpoint_id = $1 AND status <> 'TERMINATED' GROUP BY 1, 2`,
    [endpointId],
  );
  const sum = (keep) => rows.filter(keep).reduce((total, row) => total + row.n, 0);
  return {
    live: sum((row) => row.status !== 'EXITED' && row.status !== 'ERROR'),
    running: sum((row) => row.status === 'RUNNING'),
    runningOn: (hostId) => sum((row) => row.status === 'RUNNING' && row.host_id === hostId),
    runningElsewhere: (hostId) => sum((row) => row.status === 'RUNNING' && row.host_id !== hostId),
    liveOn: (hostId) => sum((row) => row.host_id === hostId && !['EXITED', 'ERROR'].includes(row.status)),
    rows,
  };
}

/** Polls `probe` every 100 ms until it answers something truthy; throws naming `what` after `timeoutMs`. */
export async function until(what, probe, timeoutMs = TIMEOUT_MS) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (performance.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    }
    await sleep(100);
  }
}

/**
 * A steady job load: `POST /run` LOAD_PER_SECOND times a second (each on its own tick, not waiting for the answer
 * before the next is due), until `stop()`, which resolves the ids of the jobs the gateway accepted.
 */
export function steadyLoad(endpoint) {
  const ids = [];
  const pending = new Set();
  let failure = null;
  let n = 0;
  const timer = setInterval(() => {
    const sent = requestJson(`${endpoint.base}/run`, {
      method: 'POST',
      headers: { authorization: endpoint.key },
      body: JSON.stringify({ input: { n: n++, ms: JOB_MS } }),
    }).then(({ status, json }) => {
      if (status !== 200) throw new Error(`/run: HTTP ${status} ${JSON.stringify(json)}`);
      ids.push(json.id);
    });
    pending.add(sent);
    sent.catch((error) => (failure ??= error)).finally(() => pending.delete(sent));
  }, 1000 / LOAD_PER_SECOND);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.allSettled([...pending]);
      if (failure) throw failure;
      return ids;
    },
  };
}

/**
 * Waits (at most 2 minutes) until the broker has finished every job of `ids`; answers how many it accepted, how
 * many COMPLETED, the others by status (unfinished ones too), how many the workers on `hostId` served last and
 * how many were leased more than once (a worker stopped while it held them): jobs lost are accepted − completed.
 */
export async function jobOutcomes(sql, ids, { endpointId, hostId }) {
  const count = async () =>
    (
      await sql.query(
        `SELECT status, count(*)::int AS n FROM queue_broker.jobs WHERE id = ANY($1::text[]) GROUP BY 1`,
        [ids],
      )
    ).rows;
  let rows = [];
  await until(
    'the jobs of the drain to finish',
    async () => {
      rows = await count();
      return !rows.some((row) => row.status === 'IN_QUEUE' || row.status === 'IN_PROGRESS');
    },
    120_000,
  ).catch(() => undefined);
  const byStatus = Object.fromEntries(rows.map((row) => [row.status, row.n]));
  const { rows: served } = await sql.query(
    `SELECT count(*) FILTER (WHERE last_worker_id IN (
              SELECT id FROM pod_lifecycle.pods WHERE endpoint_id = $2 AND host_id = $3))::int AS n,
            count(*) FILTER (WHERE attempts > 1)::int AS again
       FROM queue_broker.jobs WHERE id = ANY($1::text[])`,
    [ids, endpointId, hostId],
  );
  return {
    accepted: ids.length,
    completed: byStatus.COMPLETED ?? 0,
    onDrained: served[0].n,
    leasedAgain: served[0].again,
    byStatus,
  };
}
