import { Module } from '@nestjs/common';
import { CatalogChecks } from './catalog/catalog.checks.js';
import { CatalogRepository } from './catalog/catalog.repository.js';
import { FleetLoader } from './catalog/fleet.loader.js';
import { ListCpuTypesHandler } from './catalog/list-cpu-types/list-cpu-types.handler.js';
import { ListDataCentersHandler } from './catalog/list-data-centers/list-data-centers.handler.js';
import { ListGpuTypesHandler } from './catalog/list-gpu-types/list-gpu-types.handler.js';
import { ClustersRepository } from './clusters/clusters.repository.js';
import { CreateClusterHandler } from './clusters/create-cluster/create-cluster.handler.js';
import { DeleteClusterHandler } from './clusters/delete-cluster/delete-cluster.handler.js';
import { RenameClusterHandler } from './clusters/rename-cluster/rename-cluster.handler.js';
import { FollowPodStatusHandler } from './clusters/follow-pod-status/follow-pod-status.handler.js';
import { GetClusterHandler } from './clusters/get-cluster/get-cluster.handler.js';
import { ListClusterMembersHandler } from './clusters/list-cluster-members/list-cluster-members.handler.js';
import { ListClustersHandler } from './clusters/list-clusters/list-clusters.handler.js';
import { CordonHostHandler } from './fleet/cordon-host/cordon-host.handler.js';
import { DrainDeadlines } from './fleet/drain-deadlines.js';
import { DrainHostHandler } from './fleet/drain-host/drain-host.handler.js';
import { ExpireDrainsHandler } from './fleet/expire-drains/expire-drains.handler.js';
import { FleetCapacityHandler } from './fleet/fleet-capacity/fleet-capacity.handler.js';
import { FleetViewsRepository } from './fleet/fleet-views.repository.js';
import { FleetMetrics } from './fleet/fleet.metrics.js';
import { GetHostHandler } from './fleet/get-host/get-host.handler.js';
import { HostChanges } from './fleet/host-changes.js';
import { HostsRepository } from './fleet/hosts.repository.js';
import { ListHostsHandler } from './fleet/list-hosts/list-hosts.handler.js';
import { RegisterHostHandler } from './fleet/register-host/register-host.handler.js';
import { RemoveHostHandler } from './fleet/remove-host/remove-host.handler.js';
import { ReportHostHealthHandler } from './fleet/report-host-health/report-host-health.handler.js';
import { UncordonHostHandler } from './fleet/uncordon-host/uncordon-host.handler.js';
import { LeaderTimers } from './leader-timers.js';
import { ClusterMembership } from './placement/cluster-membership.js';
import { PlacementRepository } from './placement/placement.repository.js';
import { LiveOverlays } from './placement/live-overlays.js';
import { PlacementApplier } from './placement/placement.applier.js';
import { HoldersRepository } from './placement/holders.repository.js';
import { Preemption } from './placement/preemption.service.js';
import { QuotaAdmission } from './placement/quota-admission.js';
import { QuotasRepository } from './quotas/quotas.repository.js';
import { QuotaViews } from './quotas/quota-views.js';
import { LedgerLock } from './quotas/ledger-lock.js';
import { QuotaSampler } from './quotas/quota-sampler.js';
import { SetQuotaHandler } from './quotas/set-quota/set-quota.handler.js';
import { GetQuotaHandler } from './quotas/get-quota/get-quota.handler.js';
import { ListQuotasHandler } from './quotas/list-quotas/list-quotas.handler.js';
import { QuotaHistoryHandler } from './quotas/quota-history/quota-history.handler.js';
import { SampleQuotasHandler } from './quotas/sample-quotas/sample-quotas.handler.js';
import { ReleasePodHandler } from './placement/release-pod/release-pod.handler.js';
import { ReservePodHandler } from './placement/reserve-pod/reserve-pod.handler.js';
import { BatchPlacement } from './placement/reserve-pod/batch-placement.js';
import { ReserveBatchRepository } from './placement/reserve-pod/reserve-batch.repository.js';
import { CreateNetworkVolumeHandler } from './volumes/create-network-volume/create-network-volume.handler.js';
import { DeleteNetworkVolumeHandler } from './volumes/delete-network-volume/delete-network-volume.handler.js';
import { GetNetworkVolumeHandler } from './volumes/get-network-volume/get-network-volume.handler.js';
import { ListNetworkVolumesHandler } from './volumes/list-network-volumes/list-network-volumes.handler.js';
import { NetworkVolumesRepository } from './volumes/network-volumes.repository.js';
import { ClustersMountingVolume, PodsMountingVolume, VolumeMountsLock } from './volumes/volume-mounts.js';
import { UpdateNetworkVolumeHandler } from './volumes/update-network-volume/update-network-volume.handler.js';
import { VolumeUsageHandler } from './volumes/usage/volume-usage.handler.js';
import { VolumeUsageRepository } from './volumes/usage/volume-usage.repository.js';

/**
 * The catalog, the fleet's live hosts, placement, clusters and network volumes: one module, since they share the
 * ledger. The features depend one way (clusters → placement → fleet → quotas, volumes → catalog); a question a
 * lower one asks of a higher one (is this volume mounted, is this pod a cluster member) is declared by the asker
 * and answered by the repository wired to it here.
 */
@Module({
  providers: [
    CatalogRepository,
    CatalogChecks,
    FleetLoader,
    ListGpuTypesHandler,
    ListCpuTypesHandler,
    ListDataCentersHandler,
    PlacementRepository,
    PlacementApplier,
    QuotasRepository,
    {
      provide: LedgerLock,
      useFactory: (placement: PlacementRepository): LedgerLock => ({
        lock: (manager) => placement.lockLedger(manager),
      }),
      inject: [PlacementRepository],
    },
    QuotaViews,
    LeaderTimers,
    QuotaSampler,
    SetQuotaHandler,
    GetQuotaHandler,
    ListQuotasHandler,
    QuotaHistoryHandler,
    SampleQuotasHandler,
    QuotaAdmission,
    HoldersRepository,
    Preemption,
    ReservePodHandler,
    BatchPlacement,
    ReserveBatchRepository,
    ReleasePodHandler,
    ClustersRepository,
    { provide: ClusterMembership, useExisting: ClustersRepository },
    { provide: LiveOverlays, useExisting: ClustersRepository },
    { provide: ClustersMountingVolume, useExisting: ClustersRepository },
    { provide: PodsMountingVolume, useExisting: PlacementRepository },
    {
      provide: VolumeMountsLock,
      useFactory: (placement: PlacementRepository): VolumeMountsLock => ({
        lock: (manager) => placement.lockLedger(manager),
      }),
      inject: [PlacementRepository],
    },
    CreateClusterHandler,
    DeleteClusterHandler,
    RenameClusterHandler,
    GetClusterHandler,
    ListClustersHandler,
    ListClusterMembersHandler,
    FollowPodStatusHandler,
    NetworkVolumesRepository,
    CreateNetworkVolumeHandler,
    UpdateNetworkVolumeHandler,
    DeleteNetworkVolumeHandler,
    GetNetworkVolumeHandler,
    ListNetworkVolumesHandler,
    VolumeUsageRepository,
    VolumeUsageHandler,
    HostsRepository,
    FleetViewsRepository,
    FleetMetrics,
    HostChanges,
    RegisterHostHandler,
    CordonHostHandler,
    UncordonHostHandler,
    DrainHostHandler,
    RemoveHostHandler,
    ReportHostHealthHandler,
    ExpireDrainsHandler,
    ListHostsHandler,
    GetHostHandler,
    FleetCapacityHandler,
    DrainDeadlines,
  ],
})
export class SchedulerModule {}
