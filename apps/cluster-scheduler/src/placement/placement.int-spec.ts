import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ErrorCode, Subjects } from '@app/contracts';
import { ALICE, type HandlerHarness } from '../../../../test/support/handler-harness.js';
import {
  DC,
  GPU,
  SchedulerCommands,
  reserveOneGpu,
} from '../../../../test/support/cluster-scheduler-commands.js';
import { PlacementRepository } from './placement.repository.js';
import { place, type PlacementRequest } from './placement.js';
import { DEFAULT_PLUGINS } from './plugins/index.js';
import { QuotaAdmission } from './quota-admission.js';
import { ReserveBatchRepository } from './reserve-pod/reserve-batch.repository.js';
import { surePlace } from './reserve-pod/reserve-batch.js';
import { table } from '../schema.js';

/**
 * The placement commands (reserve, release) over cluster-scheduler's real schema (its migrations, the default fleet
 * loaded) and an in-process bus: what a reserve places and what it costs, its refusals, and a release.
 */

/**
 * What one pod reserve sends to Postgres, transaction control and prepared statements included: the processed-row
 * lookup, BEGIN, the ledger's lock, the reads before placing (the pod's reservation, its cluster membership, the
 * GPU type with the prices, the owner's quota ledger, the snapshot with the hosts' addresses and ports), the claim
 * (hosts, reservation and ports in one statement), the bookkeeping and COMMIT. Was 17 when the reserve read, locked,
 * claimed and priced in statements of its own (ReserveBatchRepository).
 */
const RESERVE_STATEMENTS = 11;

/**
 * What each reserve after the first adds to a lane's batch (one transaction): its claim. The first reserve read
 * for it (the ledger's lock held, its reads kept and its claim folded in: BatchPlacement); was 13.
 */
const BATCHED_RESERVE_STATEMENTS = 1;

let scheduler: SchedulerCommands;
let harness: HandlerHarness;
let placementRepository: PlacementRepository;
let readAhead: ReserveBatchRepository;

beforeAll(async () => {
  scheduler = await SchedulerCommands.start('scheduler_placement');
  ({ harness, placement: placementRepository } = scheduler);
  readAhead = new ReserveBatchRepository(
    scheduler.harness.dataSource,
    scheduler.catalog,
    scheduler.clusters,
    new QuotaAdmission(scheduler.quotas),
  );
});

afterAll(async () => {
  await scheduler?.stop();
});

describe('placement', () => {
  it('reserves a GPU pod with public ports on a host of the fleet, and gives the same reservation back', async () => {
    const command = {
      podId: 'pod-reserved',
      ownerId: ALICE.userId,
      gpuTypeId: GPU,
      gpuCount: 2,
      ports: ['8888/http', '22/tcp'],
      dataCenterIds: [DC],
    };
    const first = await harness.send(Subjects.placement.reserve, command);
    expect(first).toMatchObject({ podId: 'pod-reserved', dataCenterId: DC, gpuTypeId: GPU, gpuCount: 2 });
    expect(first.publicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(Object.keys(first.portMappings).sort()).toEqual(['22/tcp', '8888/http']);
    expect(first.rates).toBeDefined();
    const again = await harness.send(Subjects.placement.reserve, command);
    expect(again).toMatchObject({
      hostId: first.hostId,
      publicIp: first.publicIp,
      portMappings: first.portMappings,
    });
  });

  it("a resume that finds the pod's reservation held keeps it from the release of the stop before it", async () => {
    // A stop's release is recorded by the scheduler when it hears the stop (FollowPodStatusHandler), so a start
    // right after the stop can reach the reserve first and find the reservation still held.
    const command = reserveOneGpu('pod-stopped-started');
    const created = await harness.send(Subjects.placement.reserve, command, {
      issuedAt: '2026-03-01T12:00:00.000Z',
    });
    await harness.send(
      Subjects.placement.reserve,
      { ...command, hostId: created.hostId, reassignPorts: true },
      { issuedAt: '2026-03-01T12:05:00.000Z' },
    );
    await harness.send(Subjects.placement.release, {
      podId: 'pod-stopped-started',
      notAfter: '2026-03-01T12:04:00.000Z',
    });
    expect(await placementRepository.findReservation('pod-stopped-started')).toMatchObject({
      hostId: created.hostId,
      portMappings: created.portMappings,
    });
    // A release after the resume takes it as before.
    await harness.send(Subjects.placement.release, {
      podId: 'pod-stopped-started',
      notAfter: '2026-03-01T12:06:00.000Z',
    });
    expect(await placementRepository.findReservation('pod-stopped-started')).toBeNull();
  });

  it('refuses more GPUs than the type allows per pod (422)', async () => {
    const reserve = harness.send(Subjects.placement.reserve, {
      podId: 'pod-too-big',
      ownerId: ALICE.userId,
      gpuTypeId: GPU,
      gpuCount: 9,
      ports: [],
    });
    expect(await harness.refusal(() => reserve)).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
      errors: [expect.stringContaining('gpuCount must not be greater than 8')],
    });
  });

  it('checks what the reserve names in the order it always has: the GPU type, then the data centers', async () => {
    const ask = { podId: 'pod-misnamed', ownerId: ALICE.userId, gpuCount: 1, ports: [] };
    const both = harness.send(Subjects.placement.reserve, {
      ...ask,
      gpuTypeId: 'NO-SUCH-GPU',
      dataCenterIds: ['NO-SUCH-DC'],
    });
    expect(await harness.refusal(() => both)).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
      errors: [expect.stringContaining('"NO-SUCH-GPU" is not one')],
    });
    const dc = harness.send(Subjects.placement.reserve, {
      ...ask,
      gpuTypeId: GPU,
      dataCenterIds: [DC, 'NO-SUCH-DC'],
    });
    expect(await harness.refusal(() => dc)).toMatchObject({
      wrote: [],
      code: ErrorCode.ValidationFailed,
      errors: [
        'dataCenterIds.1 must be a data center id from GET /v2/catalog/datacenters; "NO-SUCH-DC" is not one',
      ],
    });
  });

  it('reserves a pod in a fixed number of statements', async () => {
    const { statements } = await harness.statements(() =>
      harness.send(Subjects.placement.reserve, {
        podId: 'pod-counted',
        ownerId: ALICE.userId,
        gpuTypeId: GPU,
        gpuCount: 1,
        ports: ['22/tcp'],
      }),
    );
    expect(statements).toBe(RESERVE_STATEMENTS);
  });

  it("reserves pods in a lane's batch for a fixed number of statements each", async () => {
    const batch = (n: number, tag: string) =>
      harness.statements(() =>
        harness.sendBatch(
          Array.from({ length: n }, (_, i) => ({
            subject: Subjects.placement.reserve,
            payload: { ...reserveOneGpu(`pod-batched-${tag}-${i}`), ports: ['22/tcp'] },
          })),
        ),
      );
    const one = await batch(1, 'one');
    const four = await batch(4, 'four');
    // A batch's first deliveries are not looked up first (BatchItem.fresh): one statement fewer than `send`.
    expect(one.statements).toBe(RESERVE_STATEMENTS - 1);
    expect(four.statements - one.statements).toBe(3 * BATCHED_RESERVE_STATEMENTS);
    const placed = four.result as { podId: string; hostId: string; portMappings: Record<string, number> }[];
    expect(placed.map((p) => p.podId)).toEqual([0, 1, 2, 3].map((i) => `pod-batched-four-${i}`));
    // Each saw the ones before it: no port mapped twice on a host.
    const mapped = placed.map((p) => `${p.hostId}:${p.portMappings['22/tcp']}`);
    expect(new Set(mapped).size).toBe(4);
  });

  it('refuses a release without a pod id (422), and releasing a pod that holds nothing writes nothing', async () => {
    expect(await harness.refusal(() => harness.send(Subjects.placement.release, {}))).toMatchObject({
      code: ErrorCode.ValidationFailed,
      wrote: [],
    });
    const release = () => harness.send(Subjects.placement.release, { podId: 'pod-never-placed' });
    expect(await harness.wrote(release)).toEqual({ result: null, wrote: [] });
  });

  it('releases a reservation, twice harmlessly', async () => {
    await harness.send(Subjects.placement.reserve, {
      podId: 'pod-released',
      ownerId: ALICE.userId,
      gpuTypeId: GPU,
      gpuCount: 1,
      ports: [],
    });
    await expect(harness.send(Subjects.placement.release, { podId: 'pod-released' })).resolves.toBeNull();
    await expect(harness.send(Subjects.placement.release, { podId: 'pod-released' })).resolves.toBeNull();
  });

  it('plans from the hosts the packing order reaches exactly as from every host (the bounded snapshot)', async () => {
    const rollback = new Error('rollback');
    await scheduler.harness.dataSource
      .transaction(async (manager) => {
        // A used fleet: a pseudo-random part of every host's GPUs, CPU slots and ports taken.
        await manager.query(
          `UPDATE ${table('hosts')} SET free_gpus = (hashtext(id) & 65535) % (gpu_count + 1),
                  free_cpu_slots = (hashtext(id || 'c') & 65535) % (cpu_slots + 1),
                  free_ports = least(free_ports, (hashtext(id || 'p') & 65535) % 6)`,
        );
        const dataCenters: { id: string }[] = await manager.query(`SELECT id FROM ${table('data_centers')}`);
        const types: { id: string }[] = await manager.query(
          `SELECT DISTINCT gpu_type_id AS id FROM ${table('hosts')} WHERE gpu_type_id IS NOT NULL ORDER BY 1`,
        );
        const asks: PlacementRequest[] = [];
        for (const gpuTypeId of [...types.map((t) => t.id), null]) {
          for (const [podCount, gpusPerPod, portsPerPod] of [
            [1, 1, 1],
            [3, 2, 0],
            [8, 1, 2],
            [40, 1, 1],
            [500, 1, 0],
          ]) {
            for (const dataCenterIds of [[], [dataCenters[1].id, dataCenters[0].id]]) {
              asks.push({
                gpuTypeId,
                gpusPerPod: gpuTypeId === null ? 0 : gpusPerPod,
                cpuTypeId: null,
                podCount,
                portsPerPod,
                dataCenterIds,
                regions: [],
                volumeDataCenterId: null,
                hostId: null,
              });
            }
          }
        }
        let placed = 0;
        for (const request of asks) {
          const bounded = await placementRepository.snapshot(manager, request);
          const whole = await placementRepository.snapshot(manager, request, true);
          const plan = place(bounded, request, DEFAULT_PLUGINS);
          expect(plan).toEqual(place(whole, request, DEFAULT_PLUGINS));
          // A lane's batch reads ahead for this request and two more of its shape: it plans the same, sure of it.
          const ahead = {
            podId: 'pod-ahead',
            ownerId: 'nobody',
            gpuTypeId: request.gpuTypeId,
            namesDataCenters: false,
          };
          const batch = await readAhead.read(manager, [
            { ...ahead, request },
            { ...ahead, request: { ...request, podCount: 2 } },
          ]);
          const read = batch.snapshot(request)!;
          expect(surePlace(read.snapshot, read.incomplete, request, DEFAULT_PLUGINS)).toEqual(plan);
          if (plan.ok) placed++;
          // One pod: at most the first host of each data center in packing order.
          if (request.podCount === 1) expect(bounded.hosts.length).toBeLessThanOrEqual(dataCenters.length);
        }
        // Both kinds of answer were compared.
        expect(placed).toBeGreaterThan(asks.length / 3);
        expect(placed).toBeLessThan(asks.length);
        throw rollback;
      })
      .catch((error: unknown) => {
        if (error !== rollback) throw error;
      });
  });
});
