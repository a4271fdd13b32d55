import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { DomainError, ErrorCode } from '@app/contracts';
import { pipelinedSavepoint } from '@app/database';
import { ClusterSchedulerConfig } from '../cluster-scheduler.config.js';
import { allocateBlock, blockSizeFor, lowestFreeId, parseCidr, type Block } from '../overlay/overlay.js';
import { mountableNetworkVolume } from '../volumes/network-volume.access.js';
import type { NetworkVolumeEntity } from '../volumes/network-volume.entity.js';
import { NetworkVolumesRepository } from '../volumes/network-volumes.repository.js';
import { LiveOverlays } from './live-overlays.js';
import { Preemption, type PreemptingAsk } from './preemption.service.js';
import { QuotaAdmission, quotaPlugins } from './quota-admission.js';
import { DEFAULT_PLUGINS } from './plugins/index.js';
import { consideredDataCenters, place, type FleetSnapshot, type PlacementRequest } from './placement.js';
import { PlacementRepository, type ClaimTerms } from './placement.repository.js';
import { isLostRace, type PodClaim } from './port-allocation.js';

/** What to place and for whom: the pods of a cluster (ranks 0…n-1) or one standalone pod. */
export interface PlacementOrder {
  ownerId: string;
  /** The cluster the pods are members of (a new cluster's, or a member resumed on its host), else null. */
  clusterId: string | null;
  /** One id per pod, by rank. */
  podIds: readonly string[];
  /** The GPU type and count of each pod; a pod without GPUs takes one CPU slot of `cpuTypeId` (or any). */
  gpuTypeId: string | null;
  gpusPerPod: number;
  cpuTypeId: string | null;
  /** The port specs each pod exposes publicly. */
  ports: readonly string[];
  dataCenterIds: readonly string[];
  regions: readonly string[];
  hostId: string | null;
  /** The network volume the pods mount (checked with `mountableVolume`): they are placed in its data center. */
  volume: NetworkVolumeEntity | null;
  createdAt: Date;
  /** A cluster's overlay network: a free VXLAN id and a CIDR block for its pods, taken with them. */
  overlay: boolean;
  /** The refusal when no data center has the capacity, naming what was asked and the data centers considered. */
  noCapacity: (considered: string[]) => DomainError;
  /** priorityRank of the workload, and whether it is preemptible at any priority. */
  priority: number;
  interruptible: boolean;
  /** The command placing it and the workload's id (its pod's or its cluster's): what a preemption records. */
  asker: { ctx: PreemptingAsk['ctx']; workloadId: string };
}

/** One pod as placed: its host, that host's public address and the pod's public port mappings. */
export interface PlacedPod {
  podId: string;
  rank: number;
  hostId: string;
  publicIp: string;
  portMappings: Record<string, number>;
}

export interface AppliedPlacement {
  dataCenterId: string;
  /** By rank. */
  pods: PlacedPod[];
  overlay: { vxlanId: number; block: Block } | null;
}

/** What of an order says what to place. */
export type PlacementAsked = Pick<
  PlacementOrder,
  | 'gpuTypeId'
  | 'gpusPerPod'
  | 'cpuTypeId'
  | 'podIds'
  | 'ports'
  | 'dataCenterIds'
  | 'regions'
  | 'volume'
  | 'hostId'
>;

/** The placement an order asks for, as `place` takes it. */
export function placementRequest(order: PlacementAsked): PlacementRequest {
  return {
    gpuTypeId: order.gpuTypeId,
    gpusPerPod: order.gpuTypeId === null ? 0 : order.gpusPerPod,
    cpuTypeId: order.gpuTypeId === null ? order.cpuTypeId : null,
    podCount: order.podIds.length,
    portsPerPod: order.ports.length,
    dataCenterIds: [...order.dataCenterIds],
    regions: [...order.regions],
    volumeDataCenterId: order.volume?.dataCenterId ?? null,
    hostId: order.hostId,
  };
}

/** What every pod of an order's placement in `dataCenterId` shares, as the commit writes it. */
export function claimTerms(
  order: PlacementOrder,
  request: PlacementRequest,
  dataCenterId: string,
): ClaimTerms {
  return {
    ownerId: order.ownerId,
    clusterId: order.clusterId,
    dataCenterId,
    gpuTypeId: order.gpuTypeId,
    gpuCount: request.gpusPerPod,
    cpuSlots: order.gpuTypeId === null ? 1 : 0,
    networkVolumeId: order.volume?.id ?? null,
    ports: order.ports,
    createdAt: order.createdAt,
    priority: order.priority,
    interruptible: order.interruptible,
  };
}

/**
 * The one place a placement is applied, for cluster creation and single-pod reservation alike: plan (pure, on a
 * snapshot), then, in a savepoint of the command's transaction, claim each pod's GPUs (or CPU slot) and ports,
 * allocate a cluster's overlay, and write the caller's rows (`record`: a cluster's, whose overlay constraints
 * detect a concurrent create). A savepoint that loses a race to another transaction is rolled back and planned
 * again, so nothing is left half-taken.
 */
@Injectable()
export class PlacementApplier {
  private readonly logger = new Logger('placement');

  constructor(
    private readonly repository: PlacementRepository,
    private readonly volumes: NetworkVolumesRepository,
    private readonly overlays: LiveOverlays,
    private readonly config: ClusterSchedulerConfig,
    private readonly admission: QuotaAdmission,
    private readonly preemption: Preemption,
  ) {}

  /**
   * The network volume a request mounts (`field` names it): it must exist and be the owner's, else 422. Its row
   * stays share-locked until the mount commits (NetworkVolumesRepository.shareById).
   */
  async mountableVolume(
    field: string,
    id: string,
    ownerId: string,
    manager: EntityManager,
  ): Promise<NetworkVolumeEntity> {
    return mountableNetworkVolume(await this.volumes.shareById(id, manager), field, id, ownerId);
  }

  async apply<T = void>(
    manager: EntityManager,
    order: PlacementOrder,
    record?: (applied: AppliedPlacement, savepoint: EntityManager) => Promise<T>,
  ): Promise<{ applied: AppliedPlacement; recorded: T | undefined }> {
    const request = placementRequest(order);
    await this.repository.lockLedger(manager);
    // Admission reads the ledger under the lock, so two creates never both pass a quota (ADR 37).
    const asked = request.podCount * request.gpusPerPod;
    // The ledger and the first snapshot in one round trip (pipelined on the connection, run in order after the
    // lock).
    const [firstLedger, firstSnapshot] = await Promise.all([
      this.admission.ledger(manager, order.ownerId, request.gpuTypeId),
      this.repository.snapshot(manager, request),
    ]);
    let ledger = firstLedger;
    let fresh: FleetSnapshot | null = firstSnapshot;
    let preempted = false;
    for (let attempt = 1; ; attempt++) {
      const snapshot = fresh ?? (await this.repository.snapshot(manager, request));
      fresh = null;
      const plan = place(snapshot, request, quotaPlugins(DEFAULT_PLUGINS, ledger, asked));
      if (!plan.ok) {
        // Once per placement: what it may preempt is planned over a snapshot, released, and the placement planned
        // again over what that freed.
        const preemption = preempted
          ? null
          : await this.preemption.preempt(manager, this.ask(order), request, ledger);
        if (preemption?.ok) {
          preempted = true;
          ledger = await this.admission.ledger(manager, order.ownerId, order.gpuTypeId);
          continue;
        }
        const considered = consideredDataCenters(
          snapshot.dataCenters,
          request,
          DEFAULT_PLUGINS.dataCenterFilters,
        );
        const refusal =
          this.admission.refusal(
            ledger,
            asked,
            considered.map((dc) => dc.id),
          ) ?? order.noCapacity(considered.map((dc) => dc.id));
        if (!preemption || preemption.ok || !preemption.paced) throw refusal;
        throw new DomainError(refusal.code, `${refusal.message} (${preemption.why})`, refusal.errors);
      }
      try {
        // SAVEPOINT and RELEASE ride with the statements after them (pipelinedSavepoint): two round trips fewer.
        return await pipelinedSavepoint(manager, async (savepoint) => {
          const terms = claimTerms(order, request, plan.dataCenterId);
          const claims = plan.assignments.map((a): PodClaim => ({
            podId: order.podIds[a.rank],
            hostId: a.hostId,
          }));
          // The hosts' addresses come from the commit's own RETURNING: nothing is read back.
          const taken = await this.repository.commit(savepoint, terms, claims);
          const applied: AppliedPlacement = {
            dataCenterId: plan.dataCenterId,
            pods: plan.assignments.map((a) => ({
              podId: order.podIds[a.rank],
              rank: a.rank,
              hostId: a.hostId,
              publicIp: taken.hosts.get(a.hostId)!.publicIp,
              portMappings: taken.mappings.get(order.podIds[a.rank]) ?? {},
            })),
            overlay: order.overlay ? await this.allocateOverlay(savepoint, order.podIds.length) : null,
          };
          return { applied, recorded: record ? await record(applied, savepoint) : undefined };
        });
      } catch (error) {
        if (!isLostRace(error)) throw error;
        if (attempt >= this.config.PLACEMENT_MAX_ATTEMPTS) {
          // Nearly full and contended: say what was asked and where, as for no capacity at all.
          const refusal = order.noCapacity(
            consideredDataCenters(snapshot.dataCenters, request, DEFAULT_PLUGINS.dataCenterFilters).map(
              (dc) => dc.id,
            ),
          );
          throw new DomainError(
            refusal.code,
            `${refusal.message} (the capacity planned was taken by concurrent requests ${attempt} times in a row; try again)`,
            refusal.errors,
          );
        }
        this.logger.debug(
          `placement attempt ${attempt} lost a race (${(error as Error).message}); planning again`,
        );
        // Jitter, so replicas that keep planning for the same last hosts stop colliding in lock step. Timing only:
        // it changes no choice a replay makes.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
      }
    }
  }

  private ask(order: PlacementOrder): PreemptingAsk {
    const { ownerId, priority, interruptible, asker } = order;
    return { ctx: asker.ctx, ownerId, workloadId: asker.workloadId, priority, interruptible };
  }

  /** The lowest free VXLAN id and a free CIDR block for `podCount` pods, among the live clusters'. */
  private async allocateOverlay(
    manager: EntityManager,
    podCount: number,
  ): Promise<{ vxlanId: number; block: Block }> {
    const live = await this.overlays.liveOverlays(manager);
    const vxlanId = lowestFreeId(
      live.map((l) => l.vxlanId),
      this.config.VXLAN_ID_MIN,
      this.config.VXLAN_ID_MAX,
    );
    if (vxlanId === null) {
      throw new DomainError(
        ErrorCode.CapacityUnavailable,
        'every VXLAN id of this deployment is in use by a live cluster',
      );
    }
    const block = allocateBlock(
      parseCidr(this.config.OVERLAY_POOL),
      live.map((l) => l.block),
      blockSizeFor(podCount),
    );
    if (!block) {
      throw new DomainError(
        ErrorCode.CapacityUnavailable,
        `the overlay address pool ${this.config.OVERLAY_POOL} has no room for another ${podCount}-pod cluster`,
      );
    }
    return { vxlanId, block };
  }
}
