import {
  Subjects,
  type ClusterView,
  type NetworkVolumeView,
  type PodStatus,
  type PodStatusChangedEvent,
  type SpendStatus,
} from '@app/contracts';
import type { EventEnvelope } from '@app/messaging';
import { CatalogChecks } from '../../apps/cluster-scheduler/src/catalog/catalog.checks.js';
import { CatalogRepository } from '../../apps/cluster-scheduler/src/catalog/catalog.repository.js';
import { ClusterSchedulerConfig } from '../../apps/cluster-scheduler/src/cluster-scheduler.config.js';
import { ClustersRepository } from '../../apps/cluster-scheduler/src/clusters/clusters.repository.js';
import { CreateClusterHandler } from '../../apps/cluster-scheduler/src/clusters/create-cluster/create-cluster.handler.js';
import { DeleteClusterHandler } from '../../apps/cluster-scheduler/src/clusters/delete-cluster/delete-cluster.handler.js';
import { RenameClusterHandler } from '../../apps/cluster-scheduler/src/clusters/rename-cluster/rename-cluster.handler.js';
import { FollowPodStatusHandler } from '../../apps/cluster-scheduler/src/clusters/follow-pod-status/follow-pod-status.handler.js';
import { DATA_SOURCE_SPEC } from '../../apps/cluster-scheduler/src/data-source.js';
import { HoldersRepository } from '../../apps/cluster-scheduler/src/placement/holders.repository.js';
import { PlacementApplier } from '../../apps/cluster-scheduler/src/placement/placement.applier.js';
import { Preemption } from '../../apps/cluster-scheduler/src/placement/preemption.service.js';
import { QuotaAdmission } from '../../apps/cluster-scheduler/src/placement/quota-admission.js';
import { GetQuotaHandler } from '../../apps/cluster-scheduler/src/quotas/get-quota/get-quota.handler.js';
import { ListQuotasHandler } from '../../apps/cluster-scheduler/src/quotas/list-quotas/list-quotas.handler.js';
import { QuotaHistoryHandler } from '../../apps/cluster-scheduler/src/quotas/quota-history/quota-history.handler.js';
import { QuotaViews } from '../../apps/cluster-scheduler/src/quotas/quota-views.js';
import { QuotasRepository } from '../../apps/cluster-scheduler/src/quotas/quotas.repository.js';
import { SampleQuotasHandler } from '../../apps/cluster-scheduler/src/quotas/sample-quotas/sample-quotas.handler.js';
import { SetQuotaHandler } from '../../apps/cluster-scheduler/src/quotas/set-quota/set-quota.handler.js';
import { PlacementRepository } from '../../apps/cluster-scheduler/src/placement/placement.repository.js';
import { ReleasePodHandler } from '../../apps/cluster-scheduler/src/placement/release-pod/release-pod.handler.js';
import { ReservePodHandler } from '../../apps/cluster-scheduler/src/placement/reserve-pod/reserve-pod.handler.js';
import { BatchPlacement } from '../../apps/cluster-scheduler/src/placement/reserve-pod/batch-placement.js';
import { ReserveBatchRepository } from '../../apps/cluster-scheduler/src/placement/reserve-pod/reserve-batch.repository.js';
import { CreateNetworkVolumeHandler } from '../../apps/cluster-scheduler/src/volumes/create-network-volume/create-network-volume.handler.js';
import { DeleteNetworkVolumeHandler } from '../../apps/cluster-scheduler/src/volumes/delete-network-volume/delete-network-volume.handler.js';
import { NetworkVolumesRepository } from '../../apps/cluster-scheduler/src/volumes/network-volumes.repository.js';
import { UpdateNetworkVolumeHandler } from '../../apps/cluster-scheduler/src/volumes/update-network-volume/update-network-volume.handler.js';
import { loadFleet, registerFleet } from './cluster-scheduler-fleet.js';
import { VolumeUsageRepository } from '../../apps/cluster-scheduler/src/volumes/usage/volume-usage.repository.js';
import {
  ALICE,
  HandlerHarness,
  InProcessCommands,
  InProcessQueries,
  type SendOptions,
} from './handler-harness.js';

/** A GPU type and a data center of the default fleet. */
export const GPU = 'NVIDIA A100 80GB PCIe';
export const DC = 'US-TX-3';

const host = (
  id: string,
  dataCenterId: string,
  gpu: [string, number] | null,
  cpu: [string, number] | null,
) => ({
  id,
  dataCenterId,
  gpuTypeId: gpu?.[0] ?? null,
  gpuCount: gpu?.[1] ?? 0,
  cpuTypeId: cpu?.[0] ?? null,
  cpuSlots: cpu?.[1] ?? 0,
  publicIp: '203.0.113.10',
  portRange: [20000, 20099],
});

/**
 * A fleet small enough to state its catalog exactly (for `SchedulerCommands.start(…, { fleet })`): three GPU types
 * (two of 24 GB, one with no host; the L4 at the default price of 24 × 0.0125), two CPU types (cpu5c with no host, at
 * the default price of 8 × 2 × 0.01), two data centers, L4 hosts of 4 and 2 GPUs in Texas and of 8 in Romania, an A40
 * host of 4 in Romania, cpu3g hosts of 2 slots in Texas and 4 in Romania. Listed out of order on purpose.
 */
export const SMALL_FLEET = {
  version: 1,
  gpuTypes: [
    {
      id: 'NVIDIA A40',
      displayName: 'A40',
      manufacturer: 'Nvidia',
      memoryInGb: 48,
      maxCount: 4,
      tier: 'AMPERE_48',
      pricePerHr: 0.5,
    },
    {
      id: 'NVIDIA RTX 4090',
      displayName: 'RTX 4090',
      manufacturer: 'Nvidia',
      memoryInGb: 24,
      maxCount: 8,
      tier: 'ADA_24',
      pricePerHr: 0.4,
    },
    {
      id: 'NVIDIA L4',
      displayName: 'L4',
      manufacturer: 'Nvidia',
      memoryInGb: 24,
      maxCount: 8,
      tier: 'ADA_24',
    },
  ],
  cpuTypes: [
    { id: 'cpu5c', displayName: 'Compute-Optimized', cores: 8, threadsPerCore: 2 },
    { id: 'cpu3g', displayName: 'General Purpose', cores: 4, threadsPerCore: 2, pricePerHr: 0.1 },
  ],
  dataCenters: [
    { id: 'US-TX-3', name: 'Texas 3', region: 'US' },
    { id: 'EU-RO-1', name: 'Romania 1', region: 'RO' },
  ],
  hosts: [
    host('tx-l4-1', 'US-TX-3', ['NVIDIA L4', 4], null),
    host('tx-l4-2', 'US-TX-3', ['NVIDIA L4', 2], null),
    host('tx-cpu-1', 'US-TX-3', null, ['cpu3g', 2]),
    host('ro-l4-1', 'EU-RO-1', ['NVIDIA L4', 8], null),
    host('ro-a40-1', 'EU-RO-1', ['NVIDIA A40', 4], null),
    host('ro-cpu-1', 'EU-RO-1', null, ['cpu3g', 4]),
  ],
};

/** pod-lifecycle's answer to the spend check: no limit for anyone. */
export function noLimit(userId: string, at: string): SpendStatus {
  return {
    userId,
    operatorLimit: null,
    userLimit: null,
    monthlyLimit: null,
    month: at.slice(0, 7),
    startTime: `${at.slice(0, 7)}-01T00:00:00.000Z`,
    endTime: at,
    spend: 0,
    reached: false,
  };
}

/** A reserve of a one-GPU pod of ALICE's exposing 8888/http. */
export const reserveOneGpu = (podId: string) => ({
  podId,
  ownerId: ALICE.userId,
  gpuTypeId: GPU,
  gpuCount: 1,
  ports: ['8888/http'],
});

/** pod-lifecycle's status event of one of ALICE's pods, at `at`. */
export function statusEvent(
  podId: string,
  status: PodStatus,
  previousStatus: PodStatus | null,
  at: Date,
): EventEnvelope<PodStatusChangedEvent> {
  return {
    eventId: `evt-${podId}-${status}-${at.getTime()}`,
    subject: Subjects.pod.statusChanged,
    occurredAt: at.toISOString(),
    correlationId: `corr-${podId}`,
    payload: {
      podId,
      ownerId: ALICE.userId,
      clusterId: null,
      rank: 0,
      status,
      previousStatus,
      hostId: null,
      publicIp: null,
      portMappings: {},
      at: at.toISOString(),
    },
  };
}

/**
 * cluster-scheduler's command handlers over its real schema (HandlerHarness), for its medium tests: the fleet
 * loaded (the default one, or the one given), the repositories and the placement applier as the app wires them,
 * every volume, cluster, placement, quota and fleet command (and the fleet's queries) registered, pod status events
 * followed (`follow`); a test registers the other handlers it is about on `harness`. Shared: a feature's tests may
 * not import another's use cases (boundary lint); the volumes' tests reserve pods, the placement's create clusters.
 */
export class SchedulerCommands {
  /** The handler of pod-lifecycle's status events, its releases applied at once on `harness`. */
  readonly followPodStatus: FollowPodStatusHandler;

  private constructor(
    readonly harness: HandlerHarness,
    readonly config: ClusterSchedulerConfig,
    readonly catalog: CatalogRepository,
    readonly volumes: NetworkVolumesRepository,
    readonly usage: VolumeUsageRepository,
    readonly placement: PlacementRepository,
    readonly clusters: ClustersRepository,
    readonly quotas: QuotasRepository,
  ) {
    this.followPodStatus = new FollowPodStatusHandler(
      clusters,
      placement,
      new InProcessCommands(harness).asBus(),
    );
  }

  /** `fleet`: a fleet file's content, loaded in place of the default fleet. */
  static async start(label: string, options: { fleet?: object } = {}): Promise<SchedulerCommands> {
    const harness = await HandlerHarness.start(label, 'cluster-scheduler', DATA_SOURCE_SPEC);
    try {
      const { dataSource } = harness;
      const config = new ClusterSchedulerConfig();
      const catalog = new CatalogRepository(dataSource);
      await loadFleet(config, catalog, options.fleet);
      const checks = new CatalogChecks(catalog);
      const volumes = new NetworkVolumesRepository(dataSource);
      const usage = new VolumeUsageRepository(dataSource);
      const placement = new PlacementRepository(dataSource);
      const clusters = new ClustersRepository(dataSource);
      const quotas = new QuotasRepository(dataSource);
      const preemption = new Preemption(placement, new HoldersRepository(), quotas, config);
      const applier = new PlacementApplier(
        placement,
        volumes,
        clusters,
        config,
        new QuotaAdmission(quotas),
        preemption,
      );
      const views = new QuotaViews(quotas);
      const queries = new InProcessQueries().answer(Subjects.spend.status, ({ at }, actor) =>
        noLimit(actor.userId, at ?? '2026-03-01T12:00:00.000Z'),
      );
      harness.register(
        new CreateNetworkVolumeHandler(volumes, checks, usage),
        new UpdateNetworkVolumeHandler(volumes, usage),
        new DeleteNetworkVolumeHandler(volumes, usage, clusters, placement, {
          lock: (manager) => placement.lockLedger(manager),
        }),
        new CreateClusterHandler(clusters, applier, checks, catalog, config, queries.asBus()),
        new DeleteClusterHandler(clusters, placement),
        new RenameClusterHandler(clusters),
        new ReservePodHandler(
          placement,
          applier,
          new BatchPlacement(
            placement,
            new ReserveBatchRepository(dataSource, catalog, clusters, new QuotaAdmission(quotas)),
          ),
          checks,
          catalog,
        ),
        new ReleasePodHandler(placement),
        new SetQuotaHandler(quotas, checks, { lock: (manager) => placement.lockLedger(manager) }),
        new SampleQuotasHandler(quotas),
        new GetQuotaHandler(views),
        new ListQuotasHandler(quotas, views),
        new QuotaHistoryHandler(quotas),
      );
      registerFleet(harness, config, catalog, placement);
      return new SchedulerCommands(harness, config, catalog, volumes, usage, placement, clusters, quotas);
    } catch (error) {
      await harness.stop();
      throw error;
    }
  }

  /** A 10 GB volume of the actor's (ALICE by default) in `dataCenterId`. */
  createVolume(name: string, dataCenterId = DC, options: SendOptions = {}): Promise<NetworkVolumeView> {
    return this.harness.send(Subjects.volume.create, { name, size: 10, dataCenterId }, options);
  }

  /** A TRAINING cluster of `podCount` pods with `gpuCountPerPod` GPUs each, in the one data center. */
  createCluster(
    name: string,
    podCount = 2,
    gpuCountPerPod = 8,
    options: SendOptions = {},
  ): Promise<ClusterView> {
    return this.harness.send(
      Subjects.cluster.create,
      { name, type: 'TRAINING', compute: { gpuTypeId: GPU, gpuCountPerPod, podCount }, dataCenterIds: [DC] },
      options,
    );
  }

  /** Handles a status event as cluster-scheduler's event consumer does: in a transaction of its own. */
  follow(event: EventEnvelope<PodStatusChangedEvent>): Promise<void> {
    return this.harness.dataSource.transaction((manager) =>
      this.followPodStatus.handle({ event, manager, emit: () => Promise.resolve() }),
    );
  }

  stop(): Promise<void> {
    return this.harness.stop();
  }
}
