import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  PodStatus,
  type BillingSummaryList,
  type BillingV1Record,
  type ClusterBillingList,
  type ClusterView,
  type EndpointV2View,
  type NetworkVolumeBillingList,
  type NetworkVolumeView,
  type PodBillingList,
  type PodV2View,
  type PodV2List,
  type PodView,
  type ServerlessBillingList,
  type UsageExportRow,
} from '@app/contracts';
import type { RunningSystem } from '../support/system.js';
import type { TestDatabase } from '../support/test-database.js';
import { A100, H100, writeFleet } from './clusters-fixtures.js';
import { expectProblem, getPod, sleep, until, waitForPod, type Call } from './pods.e2e-helpers.js';
import { startServerlessSystem, stopServerlessSystem } from './serverless-system.e2e-helpers.js';

/**
 * Usage and costs end to end (ADR 21), all five apps on the simulated runtime: a pod run for a while, stopped and
 * terminated, a cluster, an endpoint's worker and a network volume are billed at the fleet's prices × the
 * durations between their recorded transitions, to the millisecond, and the same after the apps restart.
 */
const FLEET = writeFleet([
  { id: 'ro-a100-1', dataCenterId: 'EU-RO-1', gpuTypeId: A100, gpuCount: 8 },
  { id: 'ro-h100-1', dataCenterId: 'EU-RO-1', gpuTypeId: H100, gpuCount: 8 },
]);
const A100_HR = 1; // the default: 80 GB × 0.0125
const H100_HR = 2.49; // the fleet file's
const DISK_GB_HR = 0.00014;
const VOLUME_GB_HR = 0.0001;

const hours = (from: string | number, to: string | number) =>
  (Date.parse(String(to)) - Date.parse(String(from))) / 3_600_000;
const ms = (t: string | number) => (typeof t === 'number' ? t : Date.parse(t));
const sum = <T>(records: T[], field: (r: T) => number) => records.reduce((n, r) => n + field(r), 0);
/**
 * Amounts are rounded to the micro-dollar (roundMoney), so an amount is right when it is within half a micro-dollar
 * of the exact figure; toBeCloseTo(…, 6) demands strictly less and fails when the exact figure ends in a half.
 */
const expectMicroDollars = (received: number, exact: number) =>
  expect(Math.abs(received - exact)).toBeLessThanOrEqual(0.5e-6 + 1e-12);
/** An hour from now: what a range needs to hold intervals that are all closed. */
const later = () => new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000).toISOString();
/** A second boundary in the past: usage up to it is final even for what still runs. */
const pastSecond = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString();

describe('usage and costs', () => {
  let db: TestDatabase;
  let system: RunningSystem;
  let alice: Call;
  let templateId: string;
  const start = new Date(Date.now() - 3_600_000).toISOString();
  const range = (end: string, bucket = 'day') => `startTime=${start}&endTime=${end}&bucketSize=${bucket}`;
  /** Every answer the restart must reproduce: path → body. */
  const answers = new Map<string, unknown>();
  const read = async <T>(path: string): Promise<T> => {
    const reply = await alice<T>('GET', path);
    expect(reply.status).toBe(200);
    answers.set(path, reply.body);
    return reply.body;
  };

  beforeAll(async () => {
    let template;
    ({ db, system, alice, template } = await startServerlessSystem('billing', {
      'cluster-scheduler': { FLEET_FILE: FLEET },
      'pod-lifecycle': { RUNTIME_DRIVER: 'simulated', SIM_PROVISION_MS: '100', SIM_START_MS: '100' },
      'endpoint-autoscaler': { AUTOSCALER_TICK_MS: '200' },
    }));
    templateId = template.id;
  });

  afterAll(() => stopServerlessSystem({ db, system }));

  it('bills a pod: GPUs until it is stopped, its disk until it is terminated; costPerHr on its views', async () => {
    const created = await alice<PodV2View>('POST', '/v2/pods', {
      name: 'metered',
      image: 'runpod/base:0.6.2',
      gpu: { id: H100, count: 2 },
      disk: 20,
    });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.body.costPerHr).toBeCloseTo(2 * H100_HR + 20 * DISK_GB_HR, 6);
    await waitForPod(alice, id, PodStatus.Running);
    await sleep(1200);
    expect((await alice('POST', `/v2/pods/${id}/action`, { action: 'stop' })).status).toBe(200);
    const stopped = await getPod(alice, id);
    expect(stopped.status).toBe(PodStatus.Exited);
    await sleep(800);
    expect((await alice('DELETE', `/v2/pods/${id}`)).status).toBe(204);
    const terminated = await waitForPod(alice, id, PodStatus.Terminated);

    const gpuHours = hours(stopped.createdAt, stopped.lastStatusChange);
    const diskHours = hours(stopped.createdAt, terminated.lastStatusChange);
    const bill = await read<PodBillingList>(`/v2/billing/pods?podId=${id}&${range(later(), 'hour')}`);
    expect(new Set(bill.records.map((r) => r.podId))).toEqual(new Set([id]));
    expect(sum(bill.records, (r) => r.timeBilledMs)).toBe(
      ms(stopped.lastStatusChange) - ms(stopped.createdAt),
    );
    expect(sum(bill.records, (r) => r.gpuHours)).toBeCloseTo(2 * gpuHours, 5);
    expect(sum(bill.records, (r) => r.gpuAmount)).toBeCloseTo(2 * H100_HR * gpuHours, 5);
    expect(sum(bill.records, (r) => r.diskAmount)).toBeCloseTo(20 * DISK_GB_HR * diskHours, 5);
    expect(bill.metadata.totalAmount).toBeCloseTo(2 * H100_HR * gpuHours + 20 * DISK_GB_HR * diskHours, 5);
    expect(bill.records.every((r) => r.gpuTypeId === H100 && r.cpuAmount === 0)).toBe(true);

    const v1 = await read<BillingV1Record[]>(`/v1/billing/pods?${range(later())}`);
    expect(
      sum(
        v1.filter((r) => r.podId === id),
        (r) => r.amount,
      ),
    ).toBeCloseTo(bill.metadata.totalAmount, 5);
  });

  it('bills a cluster per member from its creation', async () => {
    const created = await alice<ClusterView>('POST', '/v2/clusters', {
      name: 'metered-cluster',
      type: 'TRAINING',
      compute: { gpuTypeId: A100, gpuCountPerPod: 1, podCount: 2 },
    });
    expect(created.status).toBe(201);
    const clusterId = created.body.id;
    const members = await until('both members RUNNING', async () => {
      const { pods } = (await alice<PodV2List>('GET', `/v2/clusters/${clusterId}/pods`)).body;
      return pods.length === 2 && pods.every((p) => p.status === PodStatus.Running) ? pods : undefined;
    });
    await sleep(1500);
    const end = pastSecond();
    const bill = await read<ClusterBillingList>(`/v2/billing/clusters?clusterId=${clusterId}&${range(end)}`);
    const memberHours = members.map((m) => hours(m.createdAt, end));
    expect(sum(bill.records, (r) => r.gpuAmount)).toBeCloseTo(A100_HR * sum(memberHours, (h) => h), 5);
    expect(sum(bill.records, (r) => r.diskAmount)).toBeCloseTo(
      sum(members, (m) => m.disk * DISK_GB_HR * hours(m.createdAt, end)),
      5,
    );
    // Members count under the cluster, not as pods.
    const pods = await read<PodBillingList>(`/v2/billing/pods?${range(end)}`);
    expect(pods.records.some((r) => members.some((m) => m.id === r.podId))).toBe(false);
    expect((await alice('DELETE', `/v2/clusters/${clusterId}`)).status).toBe(204);
  });

  it("bills an endpoint for its workers' seconds", async () => {
    const endpoint = await alice<EndpointV2View>('POST', '/v2/serverless', {
      name: 'metered-endpoint',
      type: 'QUEUE',
      templateId,
      gpu: { pools: ['AMPERE_80'], count: 1 },
      workers: { min: 1, max: 1, idleTimeout: 10 },
    });
    expect(endpoint.status).toBe(201);
    const endpointId = endpoint.body.id;
    const workers = await until('a worker pod', async () => {
      const pods = (await alice<PodView[]>('GET', '/v1/pods')).body;
      const found = pods.filter((p) => p.env.RUNPOD_ENDPOINT_ID === endpointId);
      return found.length ? found : undefined;
    });
    await sleep(1500);
    const end = pastSecond();
    const bill = await read<ServerlessBillingList>(
      `/v2/billing/serverless?endpointId=${endpointId}&${range(end)}`,
    );
    const workerPods = await Promise.all(workers.map((w) => getPod(alice, w.id)));
    const expected = sum(
      workerPods,
      (w) => (A100_HR * w.gpuCount + w.containerDiskInGb * DISK_GB_HR) * hours(w.createdAt, end),
    );
    expect(bill.metadata.totalAmount).toBeCloseTo(expected, 5);
    expect(sum(bill.records, (r) => r.timeBilledMs)).toBe(sum(workerPods, (w) => ms(end) - ms(w.createdAt)));
    expect(
      (await read<ServerlessBillingList>(`/v2/billing/endpoints?endpointId=${endpointId}&${range(end)}`))
        .metadata.totalAmount,
    ).toBe(bill.metadata.totalAmount);
    const v1 = await read<BillingV1Record[]>(`/v1/billing/endpoints?${range(end)}`);
    expect(
      sum(
        v1.filter((r) => r.endpointId === endpointId),
        (r) => r.amount,
      ),
    ).toBeCloseTo(expected, 5);
  });

  it('bills a network volume per GB-hour', async () => {
    const created = await alice<NetworkVolumeView>('POST', '/v1/networkvolumes', {
      name: 'metered-volume',
      size: 50,
      dataCenterId: 'EU-RO-1',
    });
    expect(created.status).toBe(201);
    await sleep(1500);
    const end = pastSecond();
    const bill = await read<NetworkVolumeBillingList>(
      `/v2/billing/network-volumes?networkVolumeId=${created.body.id}&${range(end)}`,
    );
    expectMicroDollars(bill.metadata.totalAmount, 50 * VOLUME_GB_HR * hours(created.body.createdAt, end));
    expect(sum(bill.records, (r) => r.gbHours)).toBeCloseTo(50 * hours(created.body.createdAt, end), 5);
    await read<BillingV1Record[]>(`/v1/billing/networkvolumes?${range(end)}`);
  });

  it('sums every family per bucket, and exports the same records as CSV and JSON lines', async () => {
    const end = pastSecond();
    const summary = await read<BillingSummaryList>(`/v2/billing?${range(end)}`);
    expect(summary.metadata.totalAmount).toBeGreaterThan(0);
    const jsonl = await alice('GET', `/v2/billing/export?format=jsonl&${range(end)}`);
    expect(jsonl.contentType).toContain('application/x-ndjson');
    const rows = jsonl.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as UsageExportRow);
    expect(new Set(rows.map((r) => r.family))).toEqual(
      new Set(['pod', 'cluster', 'serverless', 'network-volume']),
    );
    expect(sum(rows, (r) => r.totalAmount)).toBeCloseTo(summary.metadata.totalAmount, 5);
    const csv = await alice('GET', `/v2/billing/export?${range(end)}`);
    expect(csv.contentType).toContain('text/csv');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'time,family,resourceId,gpuTypeId,computeSeconds,gpuSeconds,storageGbSeconds,computeAmount,storageAmount,totalAmount',
    );
    expect(lines).toHaveLength(rows.length + 1);
    const xml = await alice<{ errors: string[] }>('GET', '/v2/billing/export?format=xml');
    expectProblem(xml, 422);
    expect(xml.body.errors).toEqual(['format must be one of csv, jsonl']);
    expectProblem(await alice('GET', `/v2/billing?startTime=${end}&endTime=${start}`), 422, /validation/);
    expectProblem(await alice('GET', '/v2/billing/pods?bucketSize=week'), 422, /validation/);
  });

  it('answers the same figures after the apps restart', async () => {
    for (const app of ['pod-lifecycle', 'cluster-scheduler', 'gateway'] as const) await system.restart(app);
    for (const [path, body] of answers) expect([path, (await alice('GET', path)).body]).toEqual([path, body]);
  });
});
