import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { AppName } from '@app/contracts';
import {
  A100,
  startFaultSystem,
  type FaultSystem,
  LOAD_TIMINGS,
  REPLICATED,
} from './support/fault-system.js';
import { call, sleep, until, type Reply } from './support/fault-calls.js';
import { RecordingWorkers } from './support/fault-workers.js';
import { jobOutcomes, placementLedger } from './support/fault-outcomes.js';
import { privatePostgres } from './support/infra-control.js';
import { recordVerdict } from './support/verdict.js';

/**
 * Postgres stopped (immediate shutdown: every connection dropped) for 10 s in the middle of load, then started
 * again. While it is down every request answers 503 application/problem+json within PROBE_BOUND_MS (no hang, no
 * 500) — except GET /status of a finished job, which the gateway may answer from its read model (200, the very
 * view it answered before the outage) while the caller's key is still in its auth cache; afterwards the same routes answer 2xx again without any app being restarted, the jobs accepted before the
 * outage all complete once, and the clusters created just before it get all their pods RUNNING.
 */
const APPS = ['gateway', 'queue-broker', 'cluster-scheduler', 'pod-lifecycle'] as const satisfies AppName[];
const OUTAGE_MS = 10_000;
const PROBE_BOUND_MS = 10_000;
const RECOVER_MS = 60_000;
const CONVERGE_MS = 120_000;

let fs: FaultSystem;
let workers: RecordingWorkers;
let knownJob: string;

beforeAll(async () => {
  fs = await startFaultSystem('postgres', {
    apps: APPS,
    replicas: REPLICATED,
    endpoints: ['load'],
    env: LOAD_TIMINGS.env,
    appEnv: {
      'queue-broker': LOAD_TIMINGS['queue-broker'],
      gateway: LOAD_TIMINGS.gateway,
      // Pods advance on timers that fire during the outage.
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '2000', SIM_START_MS: '2000' },
    },
  });
  workers = new RecordingWorkers(fs, fs.endpoints.load, 2, 4);
  const reply = await call('POST', `${fs.gateway}/v2/${fs.endpoints.load}/run`, fs.user.key, {
    input: { n: -1 },
  });
  knownJob = reply.body.id as string;
}, 120_000);

afterAll(async () => {
  if (!privatePostgres.isRunning()) await privatePostgres.start();
  await workers?.stop();
  await fs?.close();
});

/** One request per app and kind: reads and commands of the gateway, queue-broker, cluster-scheduler, pod-lifecycle. */
function probes(): { name: string; send: () => Promise<Reply & { timedOut?: boolean }> }[] {
  const ep = `${fs.gateway}/v2/${fs.endpoints.load}`;
  const key = fs.user.key;
  const timeout = PROBE_BOUND_MS + 5000;
  return [
    {
      name: 'GET /v2/catalog/gpus',
      send: () => call('GET', `${fs.gateway}/v2/catalog/gpus`, key, undefined, timeout),
    },
    {
      name: 'GET /v2/clusters',
      send: () => call('GET', `${fs.gateway}/v2/clusters`, key, undefined, timeout),
    },
    {
      name: 'POST /v2/clusters',
      send: () =>
        call(
          'POST',
          `${fs.gateway}/v2/clusters`,
          key,
          { name: 'probe', type: 'SLURM', compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 } },
          timeout,
        ),
    },
    { name: 'GET /v1/pods', send: () => call('GET', `${fs.gateway}/v1/pods`, key, undefined, timeout) },
    { name: 'POST /run', send: () => call('POST', `${ep}/run`, key, { input: { probe: true } }, timeout) },
    { name: 'GET /status', send: () => call('GET', `${ep}/status/${knownJob}`, key, undefined, timeout) },
    { name: 'GET /health', send: () => call('GET', `${ep}/health`, key, undefined, timeout) },
  ];
}

interface ProbeResult {
  name: string;
  status: number;
  problem: boolean;
  ms: number;
  timedOut: boolean;
  /** A 200 of GET /status with the finished job's pre-outage view: the gateway's read model answered. */
  fromReadModel: boolean;
}

function isProblem(reply: Reply): boolean {
  const body = reply.body as { title?: unknown; status?: unknown; detail?: unknown } | undefined;
  return (
    reply.contentType.startsWith('application/problem+json') &&
    typeof body?.title === 'string' &&
    body.status === reply.status &&
    typeof body.detail === 'string'
  );
}

describe('Postgres restarted during load', () => {
  it('requests during the outage get 503 problem+json, and service resumes by itself', async () => {
    // Background load that keeps going through the outage.
    const accepted: string[] = [];
    let loading = true;
    const submitter = async () => {
      let n = 0;
      while (loading) {
        const reply = await call('POST', `${fs.gateway}/v2/${fs.endpoints.load}/run`, fs.user.key, {
          input: { phase: 'postgres', n: n++ },
        });
        if (reply.status === 200) accepted.push(reply.body.id as string);
        else await sleep(200);
      }
    };
    const load = Promise.all(Array.from({ length: 4 }, submitter));
    await sleep(2000);

    // Clusters created just before the outage: their pods change status while Postgres is down.
    const clusters: string[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await call('POST', `${fs.gateway}/v2/clusters`, fs.user.key, {
        name: `before-outage-${i}`,
        type: 'TRAINING',
        compute: { gpuTypeId: A100, gpuCountPerPod: 2, podCount: 2 },
      });
      expect(created.status).toBe(201);
      clusters.push(created.body.id as string);
    }

    const knownView = await until(async () => {
      const reply = await call(
        'GET',
        `${fs.gateway}/v2/${fs.endpoints.load}/status/${knownJob}`,
        fs.user.key,
      );
      return reply.body.status === 'COMPLETED' ? reply.body : null;
    }, 30_000);
    expect(knownView).not.toBeNull();

    await privatePostgres.stop();
    const downAt = Date.now();
    const during: ProbeResult[] = [];
    while (Date.now() - downAt < OUTAGE_MS - PROBE_BOUND_MS / 2) {
      const round = await Promise.all(
        probes().map(async (probe) => {
          const reply = await probe.send();
          return {
            name: probe.name,
            status: reply.status,
            problem: isProblem(reply),
            ms: reply.ms,
            timedOut: reply.timedOut === true || reply.ms > PROBE_BOUND_MS,
            fromReadModel:
              probe.name === 'GET /status' &&
              reply.status === 200 &&
              JSON.stringify(reply.body) === JSON.stringify(knownView),
          };
        }),
      );
      during.push(...round);
      await sleep(500);
    }
    await sleep(Math.max(0, OUTAGE_MS - (Date.now() - downAt)));
    await privatePostgres.start();
    const upAt = Date.now();

    // Recovery: every probe answers 2xx again, with no app restarted.
    let stillFailing: string[] = [];
    let deferredCreates = 0;
    const recovered = await until(async () => {
      // A cluster create answered 503 during the outage was recorded, and is applied now that the database is
      // back (the 503 says so): those clusters appear, and are deleted so that the probes find capacity again.
      const listed = await call('GET', `${fs.gateway}/v2/clusters`, fs.user.key);
      const body = listed.body as { clusters?: { id: string; name: string }[] } | undefined;
      const rows = body?.clusters ?? [];
      for (const cluster of rows.filter((c) => c.name === 'probe')) {
        const deleted = await call('DELETE', `${fs.gateway}/v2/clusters/${cluster.id}`, fs.user.key);
        if (deleted.status >= 200 && deleted.status < 300) deferredCreates += 1;
      }
      const list = probes();
      const replies = await Promise.all(list.map((p) => p.send()));
      stillFailing = replies
        .map((r, i) => `${list[i].name}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`)
        .filter((_line, i) => replies[i].status < 200 || replies[i].status >= 300);
      return stillFailing.length === 0;
    }, RECOVER_MS);
    const recoverMs = Date.now() - upAt;
    loading = false;
    await load;
    const exited = APPS.filter((app) => !fs.system.isRunning(app));

    const drained = await until(async () => {
      const o = await jobOutcomes(fs.sql, accepted);
      return o.open === 0 && o.missing === 0 ? o : null;
    }, CONVERGE_MS);
    const podsRunning = await until(async () => {
      const { rows } = await fs.sql.query<{ status: string }>(
        'SELECT status FROM pod_lifecycle.pods WHERE cluster_id = ANY($1)',
        [clusters],
      );
      return rows.length === clusters.length * 2 && rows.every((r) => r.status === 'RUNNING');
    }, CONVERGE_MS);
    const { rows: pods } = await fs.sql.query<{ status: string }>(
      'SELECT status FROM pod_lifecycle.pods WHERE cluster_id = ANY($1)',
      [clusters],
    );
    const outcomes = await jobOutcomes(fs.sql, accepted);
    const ledger = await placementLedger(fs.sql);

    const answered503 = during.filter((p) => p.status === 503 && p.problem && !p.timedOut).length;
    const fromReadModel = during.filter((p) => p.fromReadModel && !p.timedOut).length;
    const counts = {
      probes: during.length,
      answered503,
      fromReadModel,
      deferredCreates,
      status500: during.filter((p) => p.status === 500).length,
      otherStatus: during.filter(
        (p) => p.status !== 503 && p.status !== 500 && p.status !== 0 && !p.fromReadModel,
      ).length,
      notProblemJson: during.filter((p) => p.status !== 0 && !p.problem && !p.fromReadModel).length,
      hangs: during.filter((p) => p.timedOut).length,
      maxProbeMs: Math.max(...during.map((p) => p.ms)),
      recoverMs: recovered ? recoverMs : -1,
      appsExited: exited.length,
      accepted: accepted.length,
      lost: outcomes.missing + outcomes.open,
      completedTwice: outcomes.completedTwice,
      clusterPods: pods.length,
      clusterPodsRunning: pods.filter((p) => p.status === 'RUNNING').length,
      gpuDoubleBooked: ledger.gpuDoubleBooked + ledger.ledgerMismatches,
    };
    const pass =
      during.length > 0 &&
      answered503 + fromReadModel === during.length &&
      recovered === true &&
      exited.length === 0 &&
      drained !== null &&
      counts.lost === 0 &&
      counts.completedTwice === 0 &&
      podsRunning === true &&
      counts.gpuDoubleBooked === 0;
    recordVerdict({ name: 'Postgres restarted', pass, counts });

    const bad = during.filter((p) => !((p.status === 503 && p.problem) || p.fromReadModel) || p.timedOut);
    expect(
      bad.map((p) => `${p.name}: ${p.status}${p.problem ? '' : ' (not problem+json)'} in ${p.ms} ms`),
    ).toEqual([]);
    // Named in the failure: what still failed when the recovery wait ran out.
    expect({ recovered, stillFailing }).toEqual({ recovered: true, stillFailing: [] });
    expect(exited).toEqual([]);
    expect({ lost: counts.lost, completedTwice: counts.completedTwice }).toEqual({
      lost: 0,
      completedTwice: 0,
    });
    expect(pods.map((p) => p.status)).toEqual(Array.from({ length: clusters.length * 2 }, () => 'RUNNING'));
    expect(counts.gpuDoubleBooked).toBe(0);
  });
});
